//! `table!`: a table of cases, one `#[test]` per case, so that nextest runs them on every core
//! and selects one by its name (`cargo nextest run -E 'test(/per_test::exit0::go$/)'`).

/// Expands a table into a module named after what the table shows, holding one `#[test]`
/// per `name: case` line that hands the case to the runner function, and `cases()`, every
/// case with its test's name, for the properties over a whole table.
///
/// ```ignore
/// support::table! {
///     /// What the table shows.
///     honest_work_passes: run_case(Case) {
///         pytest: case(Pytest, "honest", PASSED),
///         // A comment on one case.
///         go: case(Go, "honest", PASSED),
///     }
/// }
/// ```
///
/// The module sees its parent's items (the table's expressions are written there); the
/// runner gets the case by value and fails the test with the case's name and what went
/// wrong.
macro_rules! table {
    (
        $(#[$doc:meta])*
        $table:ident: $run:ident($ty:ty) {
            $($(#[$meta:meta])* $name:ident: $case:expr),* $(,)?
        }
    ) => {
        $(#[$doc])*
        mod $table {
            use super::*;

            $(
                $(#[$meta])*
                #[test]
                fn $name() {
                    $run($case);
                }
            )*

            /// Every case of the table, with its test's name.
            #[allow(
                dead_code,
                reason = "only the tables a property reads as a whole use it"
            )]
            pub(super) fn cases() -> Vec<(&'static str, $ty)> {
                vec![$((stringify!($name), $case)),*]
            }
        }
    };
}

pub(crate) use table;
