// Package envnames holds, in one place, the names of the PROFILE_*
// environment variables that the profiler's packages read: the root
// package, auto and upload define their Env constants from these, and the
// root package warns about a PROFILE_* variable that is none of them, or
// that another one must accompany.
package envnames
