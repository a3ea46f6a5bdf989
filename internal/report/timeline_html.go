package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/redact"
)

// The page is one file with no network access: inline CSS, inline SVG and
// a few lines of inline script (highlighting a lane on click). It opens
// from a CI artefact store or an e-mail as it is.
//
//go:embed timeline.html.tmpl
var timelineSource string

var timelinePage = template.Must(template.New("timeline").Parse(timelineSource))

// Geometry of the drawing, in SVG pixels.
const (
	tlLabelWidth = 130  // the lane labels on the left
	tlPlotWidth  = 760  // the time axis
	tlRowHeight  = 24   // one row of bars in a lane
	tlAxisHeight = 34   // the time axis on top
	tlMinBar     = 3    // a call too short to see still shows
	tlRightPad   = 250  // room for the label of a bar that ends at the right
	tlLanePad    = 6    // space between lanes
	tlUnknownBar = 0.06 // a call with no answer runs on this share of the plot
)

// WriteTimelineHTML writes a self-contained HTML page of a failing history:
// one lane per action, each call a bar from when it was sent to when it was
// answered (or given up on), labelled with the call and its answer, coloured
// by the kind of answer, planned faults marked; concurrent calls of one
// action stack in their lane. Above it the primary violation, below it the
// minimal plan and every violation. title names the page (the target).
// Passwords are masked in what it shows (a service's answer body may quote
// its database URL), as on stdout.
func WriteTimelineHTML(w io.Writer, title string, f JUnitFailure) error {
	// html/template escapes markup, not control bytes: an answer's ESC
	// or BEL shows escaped (\x1b), as on the terminal.
	if err := timelinePage.Execute(PrintableWriter{W: w}, timelineData(title, f)); err != nil {
		return fmt.Errorf("timeline HTML: %w", err)
	}
	return nil
}

type tlBar struct {
	X, Y, W, H    int
	LabelX        int
	Label, Answer string
	Class         string
	Tip           string
	Fault         string
	Step          int
	// Anchor is "end" for a label drawn left of its bar.
	Anchor string
}

type tlLane struct {
	Label   string
	Y, H    int
	Blamed  bool
	Fault   bool
	Calls   int
	TextY   int
	Stripe  bool
	LaneIdx int
}

type tlTick struct {
	X     int
	Label string
}

type tlData struct {
	Title, Headline     string
	Width, Height       int
	PlotLeft, PlotRight int
	Lanes               []tlLane
	Bars                []tlBar
	Ticks               []tlTick
	Faults              []tlFault
	Plan                string
	Violations          []checks.Violation
	Calls               int
	// Deliveries are the sinks' deliveries, one line each, where they
	// arrived on the page's clock.
	Deliveries []string
}

// tlFault is a nemesis operation of the history, drawn in its kind's lane
// from when it started to when it ended.
type tlFault struct {
	X, Y, W, H int
	LabelX     int
	Kind       string
	Label      string
	Fired      bool
	Step       int
	Touched    int
	Tip        string
}

// laneOf is the lane a call is drawn in: its action as called (a keyless
// call has a lane of its own per tenant).
func laneOf(c model.Call) string {
	if c.NoKey {
		return c.Tenant + "/(no key)"
	}
	return c.Tenant + "/" + model.KeyLabel(c.Key)
}

// timelineData lays out the page of a failing history: the time axis,
// the calls' bars stacked in their actions' lanes, the faults below them.
func timelineData(title string, f JUnitFailure) tlData {
	ops := f.History.Ops
	d := tlData{Title: redact.String(title), Plan: strings.TrimSpace(f.Plan.String()), Violations: masked(f.Violations), Calls: len(ops),
		PlotLeft: tlLabelWidth, PlotRight: tlLabelWidth + tlPlotWidth}
	if len(f.Violations) > 0 {
		d.Headline = d.Violations[0].Message
	}
	t0, t1 := timeSpan(f.History)
	span := max(t1-t0, 1)
	for _, dl := range f.History.Deliveries {
		d.Deliveries = append(d.Deliveries, redact.String(model.Printable(fmt.Sprintf("%.3f ms: %s", float64(dl.Time-t0)/1e6, delivery(dl)))))
	}
	x := func(t int64) int { return tlLabelWidth + int(float64(t-t0)/float64(span)*tlPlotWidth*(1-tlUnknownBar)) }
	bars, spans := timelineBars(f.History, x, t0)
	names, rowsEnd, rowOf := stackRows(ops, spans)
	blamed := blamedLanes(f.Violations, names)
	y := tlAxisHeight
	laneY := map[string]int{}
	for i, name := range names {
		h := len(rowsEnd[name])*tlRowHeight + tlLanePad
		laneY[name] = y
		d.Lanes = append(d.Lanes, tlLane{Label: name, Y: y, H: h, TextY: y + tlRowHeight/2 + 5, Blamed: blamed[name], Stripe: i%2 == 1, LaneIdx: i})
		y += h
	}
	for i, op := range ops {
		bars[i].Y = laneY[laneOf(op.Call)] + tlLanePad/2 + rowOf[i]*tlRowHeight + 2
	}
	d.Bars = bars
	d.Faults, y = faultLanes(&d, f.History.Faults, x, y, t0)
	for i := range 5 {
		t := t0 + span*int64(i)/4
		d.Ticks = append(d.Ticks, tlTick{X: x(t), Label: fmt.Sprintf("%.2f ms", float64(t-t0)/1e6)})
	}
	d.Width = tlLabelWidth + tlPlotWidth + tlRightPad
	d.Height = y + 10
	return d
}

// timeSpan is the time the page shows: from the first call's or fault's
// start to the last answer or fault's end; a call with no answer runs on
// past it, to show that it never ended.
func timeSpan(h model.History) (t0, t1 int64) {
	first := true
	for _, ev := range h.Events() {
		start, end := eventSpan(ev)
		if first || start < t0 {
			t0, first = start, false
		}
		t1 = max(t1, end, start)
	}
	return t0, t1
}

// timelineBars lays out each call's bar and its label, in pixels, without
// its row: the label right of the bar; where it would run off the page,
// inside a bar wide enough for it, else left. spans holds what each bar
// and its label cover, for stackRows.
func timelineBars(h model.History, x func(int64) int, t0 int64) (bars []tlBar, spans [][2]int) {
	ops := h.Ops
	bars = make([]tlBar, len(ops))
	spans = make([][2]int, len(ops))
	for i, op := range ops {
		b := tlBar{X: x(op.Start), H: tlRowHeight - 6, Label: op.Call.String(), Answer: op.Out.String(),
			Class: "k-" + string(op.Out.Kind), Step: op.Step + 1, Fault: string(op.Call.Fault)}
		if ev, ok := h.TouchedBy(i); ok && b.Fault == "" {
			// Not its own fault, but one that reached it (a crash that left
			// its replica down).
			b.Fault = string(ev.Kind)
		}
		end := x(max(op.End, op.Start))
		if op.Out.Err != "" {
			// Never answered, as far as the client knows: the bar runs on.
			end, b.Class = tlLabelWidth+tlPlotWidth, b.Class+" noanswer"
		}
		b.W = max(end-b.X, tlMinBar)
		text := textWidth(b.Label + " → " + b.Answer)
		if b.Fault != "" {
			text += textWidth("⚡ ")
		}
		switch right := b.X + b.W + 4; {
		case right+text <= tlLabelWidth+tlPlotWidth+tlRightPad:
			b.LabelX, spans[i] = right, [2]int{b.X, right + text}
		case text+8 <= b.W:
			b.LabelX, spans[i] = b.X+4, [2]int{b.X, b.X + b.W}
		default:
			b.LabelX, b.Anchor, spans[i] = b.X-4, "end", [2]int{b.X - 4 - text, b.X + b.W}
		}
		b.Tip = fmt.Sprintf("step %d: %s\nsent %s\nanswer %s\n%.3f ms – %.3f ms", op.Step+1, op.Call, op.Shown(), op.Out,
			float64(op.Start-t0)/1e6, float64(max(op.End, op.Start)-t0)/1e6)
		if len(op.Out.Body) > 0 {
			b.Tip += "\nbody " + op.Out.Body.String()
		}
		b.Answer, b.Tip = redact.String(b.Answer), redact.String(b.Tip)
		bars[i] = b
	}
	return bars, spans
}

// stackRows puts the calls in lanes, in the order their actions were first
// called; in a lane, each call takes the first row where it and its label
// overlap nothing. It returns the lanes' names, each lane's rows (where
// each ends) and each call's row.
func stackRows(ops []model.Op, spans [][2]int) (names []string, rowsEnd map[string][]int, rowOf []int) {
	rowsEnd = map[string][]int{}
	rowOf = make([]int, len(ops))
	for i, op := range ops {
		name := laneOf(op.Call)
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		rows := rowsEnd[name]
		r := slices.IndexFunc(rows, func(end int) bool { return end+6 < spans[i][0] })
		if r < 0 {
			rows = append(rows, 0)
			r = len(rows) - 1
		}
		rows[r] = spans[i][1]
		rowsEnd[name], rowOf[i] = rows, r
	}
	return names, rowsEnd, rowOf
}

// blamedLanes marks the lanes of the actions a violation names. A
// violation names its action as the contract folds it: under a global key
// scope without a tenant.
func blamedLanes(violations []checks.Violation, names []string) map[string]bool {
	blamed := map[string]bool{}
	for _, v := range violations {
		for _, name := range names {
			tenant, key, _ := strings.Cut(name, "/")
			if (v.Action.Tenant == "" || v.Action.Tenant == tenant) && (v.Action.Key == "" || model.KeyLabel(v.Action.Key) == key) &&
				(v.Action.Tenant != "" || v.Action.Key != "") {
				blamed[name] = true
			}
		}
	}
	return blamed
}

// eventSpan is when a call or fault of a history started and ended.
func eventSpan(ev model.Event) (int64, int64) {
	if ev.Op != nil {
		return ev.Op.Start, ev.Op.End
	}
	return ev.Fault.Start, ev.Fault.End
}

// faultLanes draws the history's faults below the calls, each kind of
// fault in a lane of its own ("fault: restart"), from y on, and returns
// them and where the lanes end. A fault that did not fire is drawn
// hollow: the case proved nothing.
func faultLanes(d *tlData, faults []model.FaultEvent, x func(int64) int, y int, t0 int64) ([]tlFault, int) {
	var kinds []model.Fault
	for _, ev := range faults {
		if !slices.Contains(kinds, ev.Kind) {
			kinds = append(kinds, ev.Kind)
		}
	}
	var out []tlFault
	for _, k := range kinds {
		lane := len(d.Lanes)
		var rowsEnd []int
		for _, ev := range faults {
			if ev.Kind != k {
				continue
			}
			label := ev.String()
			fl := tlFault{X: x(ev.Start), H: tlRowHeight - 6, Kind: string(ev.Kind), Label: label, Fired: ev.Fired,
				Step: ev.Step + 1, Touched: len(ev.Ops)}
			fl.W = max(x(max(ev.End, ev.Start))-fl.X, tlMinBar)
			fl.LabelX = fl.X + fl.W + 4
			end := fl.LabelX + textWidth(label)
			r := slices.IndexFunc(rowsEnd, func(e int) bool { return e+6 < fl.X })
			if r < 0 {
				rowsEnd = append(rowsEnd, 0)
				r = len(rowsEnd) - 1
			}
			rowsEnd[r] = end
			fl.Y = y + tlLanePad/2 + r*tlRowHeight + 2
			fl.Tip = redact.String(fmt.Sprintf("step %d: %s\n%.3f ms – %.3f ms", ev.Step+1, label,
				float64(ev.Start-t0)/1e6, float64(max(ev.End, ev.Start)-t0)/1e6))
			fl.Label = redact.String(fl.Label)
			out = append(out, fl)
		}
		h := len(rowsEnd)*tlRowHeight + tlLanePad
		d.Lanes = append(d.Lanes, tlLane{Label: "⚡ " + string(k), Fault: true, Y: y, H: h, TextY: y + tlRowHeight/2 + 5, Stripe: lane%2 == 1, LaneIdx: lane})
		y += h
	}
	return out, y
}

// masked is vs with the passwords in their messages and details masked.
func masked(vs []checks.Violation) []checks.Violation {
	out := make([]checks.Violation, len(vs))
	for i, v := range vs {
		v.Message, v.Detail = redact.String(v.Message), redact.String(v.Detail)
		out[i] = v
	}
	return out
}

// textWidth is about how wide s is in the page's 12px monospace font.
func textWidth(s string) int { return int(float64(utf8.RuneCountInString(s))*7.3) + 1 }
