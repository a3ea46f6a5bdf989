package process

import (
	"encoding/binary"
	"strconv"
	"syscall"
)

// listeningSockets are the sockets ("socket:[inode]") listening on TCP
// port, IPv4 and IPv6, as the kernel's sock_diag netlink interface tells;
// ok is false when it cannot tell (no netlink: read /proc/net/tcp
// instead). It asks for listening sockets only, so the kernel walks its
// short table of listeners: /proc/net/tcp lists every socket, thousands
// in TIME_WAIT after a test suite's connections, and reading it at every
// replica's start was most of a test binary's CPU.
func listeningSockets(port int) (sockets map[string]bool, ok bool) {
	sockets = map[string]bool{}
	for _, family := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		if !diagListeners(family, port, sockets) {
			return nil, false
		}
	}
	return sockets, true
}

// The sock_diag request and reply layouts (linux/sock_diag.h, inet_diag.h).
const (
	sockDiagByFamily = 20      // SOCK_DIAG_BY_FAMILY
	tcpListenState   = 1 << 10 // 1 << TCP_LISTEN
	nlmsgHdrLen      = 16
	diagReqLen       = 56 // inet_diag_req_v2
	diagMsgInode     = 68 // offset of idiag_inode in inet_diag_msg
	diagMsgSport     = 4  // offset of id.idiag_sport (big-endian)
)

// diagListeners adds the sockets of family listening on port to sockets.
func diagListeners(family uint8, port int, sockets map[string]bool) bool {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	req := make([]byte, nlmsgHdrLen+diagReqLen)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], sockDiagByFamily)
	binary.NativeEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], 1)
	req[16], req[17] = family, syscall.IPPROTO_TCP
	binary.NativeEndian.PutUint32(req[20:], tcpListenState)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return false
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return false
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return false
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return true
			case syscall.NLMSG_ERROR:
				return false
			case sockDiagByFamily:
				if len(m.Data) < diagMsgInode+4 {
					return false
				}
				if int(binary.BigEndian.Uint16(m.Data[diagMsgSport:])) == port {
					sockets["socket:["+strconv.FormatUint(uint64(binary.NativeEndian.Uint32(m.Data[diagMsgInode:])), 10)+"]"] = true
				}
			}
		}
	}
}
