// Package bench is the measuring code behind internal/testbed/bench/RESULTS.md: a
// burst's arrival spread (P1), the time to find the zoo's bugs (P2), the
// tester's throughput against a plain keep-alive loop (P3), the cost of an
// observation over foreign rows (P4), the shrunk plans' size (P5) and the
// peak memory (P6). The results command (internal/testbed/bench/cmd/results)
// runs every section and writes the file; the benchmarks call the same code.
//
// It sits at the top of the stack (it imports stress and internal/testbed/sample)
// and is internal: its names serve that command and its benchmarks only.
//
// API index: [Generate] runs the sections of [Options] into [Results], and
// [WriteMarkdown] writes them; each section has its Measure function
// ([MeasureThroughput], [MeasureZoo], [MeasureSpread], [MeasureRace],
// [MeasureP4], [MeasureBaseline], [MeasureP6]).
package bench
