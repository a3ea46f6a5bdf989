package procgroup

import (
	"encoding/binary"
	"strconv"
	"syscall"
)

// listeningInodes are the inodes of the TCP sockets (IPv4 and IPv6) that
// listen on port, as "socket:[inode]", asked of the kernel by sock_diag
// over netlink for listening sockets only. Reading /proc/net/tcp instead
// walks every socket of the host, thousands in TIME_WAIT on a busy
// machine: it cost most of a test binary's CPU as replicas restarted.
// ok is false when netlink cannot tell (then read /proc).
func listeningInodes(port int) (sockets map[string]bool, ok bool) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	sockets = map[string]bool{}
	for _, family := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		if !dumpListeners(fd, family, port, sockets) {
			return nil, false
		}
	}
	return sockets, true
}

const (
	sockDiagByFamily = 20      // SOCK_DIAG_BY_FAMILY
	tcpListenState   = 1 << 10 // TCPF_LISTEN
	diagReqLen       = 56      // struct inet_diag_req_v2
	diagMsgInode     = 68      // offset of idiag_inode in struct inet_diag_msg
)

// dumpListeners adds to sockets the listening TCP sockets of family on
// port; false when the kernel did not answer the dump in full.
func dumpListeners(fd int, family uint8, port int, sockets map[string]bool) bool {
	req := make([]byte, syscall.NLMSG_HDRLEN+diagReqLen)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], sockDiagByFamily)
	binary.NativeEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], 1) // sequence
	body := req[syscall.NLMSG_HDRLEN:]
	body[0], body[1] = family, syscall.IPPROTO_TCP
	binary.NativeEndian.PutUint32(body[4:], tcpListenState)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return false
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil || n < syscall.NLMSG_HDRLEN {
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
			}
			d := m.Data
			if len(d) < diagMsgInode+4 {
				return false
			}
			if int(binary.BigEndian.Uint16(d[4:])) == port { // idiag_sport
				sockets["socket:["+strconv.FormatUint(uint64(binary.NativeEndian.Uint32(d[diagMsgInode:])), 10)+"]"] = true
			}
		}
	}
}
