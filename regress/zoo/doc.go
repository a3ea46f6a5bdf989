// Package zoo holds regress's end-to-end test against the sample
// service's bug zoo: for every bug that shows in-process, the case file a
// real failing run writes replays as a failure on that bug's service and
// as a pass on the correct one. It lives apart from package regress's own
// tests so that each test binary stays inside go test's ten minutes
// (package regress took 513 s with it in a clean-clone CI run).
package zoo
