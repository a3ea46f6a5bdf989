// Package bugid tells one bug from another: a violation's identity (its
// check, the transition its action broke in, a wrong status's class, a
// check of rows' table), how severe a check is, and the rules that say
// whether a failing plan counts for a new bug, shows the bug being shrunk
// again, or is a reported bug seen another way. It is pure: stress's
// search and shrinker apply it to the plans they run.
package bugid
