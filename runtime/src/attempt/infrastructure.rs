//! Test infrastructure: the files (and the keys of shared manifests) that define what a
//! check runs, frozen like the tests themselves (`spec/verdict.md`).
