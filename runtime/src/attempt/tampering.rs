//! Tampering: new or changed non-test code that reaches into what judges it (invariant 8 of
//! `spec/verdict.md`).
