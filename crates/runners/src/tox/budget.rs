//! Bounds. A factor expression stands for a product of its brace groups and ranges, which
//! grows with the power of its length (`py{1-4000000000}` is 33 bytes; 300 headers of two
//! 99-item groups are 2.9 M envs). Everything one configuration file expands draws from one
//! budget, counted before a name is written out, so reading a file takes time linear in it
//! and memory bounded whatever it says; what passes the budget is cut, with a note.

/// The most env names one file's `env_list`, `[testenv:…]` headers, conditions naming new
/// envs, TOML products, ranges and `env_base` factors may make in all (a repeated name
/// counts: it is made before it is dropped). Real projects list tens of envs; the largest
/// matrices seen are a few hundred.
pub(crate) const MAX_ENVS: usize = 10_000;

/// The most bytes those names may take in all, counting a byte for each part of a product
/// too (so that a product of empty parts costs its length).
const MAX_NAME_BYTES: usize = 1 << 20;

/// The most factor groups the conditions of one file (`py311,django42: …`) may expand to,
/// in all: a budget of their own, so that conditions cannot crowd out envs.
const MAX_CONDITION_GROUPS: usize = 10_000;

/// The most numbers the ranges of one file (`{10-12}`) are written out to in all. A range
/// of more than [`MAX_ENVS`] numbers is cut to its first [`MAX_ENVS`] first: no product it
/// stands in lists more of them.
pub(super) const MAX_RANGE_NUMBERS: usize = 100_000;

/// The work the descriptions of one file's envs may take in all: lines looked at and bytes
/// written, over every env (a description is filtered for each env by its factors).
const MAX_DESCRIPTION_WORK: usize = 32 << 20;

/// What one configuration file may still make, and what was cut.
#[derive(Debug)]
pub(crate) struct Budget {
    envs: Allowance,
    conditions: Allowance,
    pub(super) numbers: usize,
    /// The first range cut, as a note shows it, and how many were.
    ranges_cut: Option<(String, usize)>,
    pub(super) work: usize,
    /// Envs listed without their description, the work being spent.
    pub(super) descriptions_cut: usize,
    notes: Vec<String>,
    /// Expressions cut after the first one of their kind (told in full), and the names
    /// they stood for that were not made.
    more_cut: usize,
    more_names: usize,
}

/// Names and bytes left to one kind of expansion.
#[derive(Debug)]
struct Allowance {
    names: usize,
    bytes: usize,
    limit: usize,
    /// What the names are, for notes.
    what: &'static str,
    /// Whether a note told of a cut already.
    told: bool,
}

/// Which allowance an expansion draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Envs,
    Conditions,
}

impl Budget {
    pub(crate) fn new() -> Self {
        let allowance = |limit, what| Allowance {
            names: limit,
            bytes: MAX_NAME_BYTES,
            limit,
            what,
            told: false,
        };
        Self {
            envs: allowance(MAX_ENVS, "envs"),
            conditions: allowance(MAX_CONDITION_GROUPS, "factor groups of conditions"),
            numbers: MAX_RANGE_NUMBERS,
            ranges_cut: None,
            work: MAX_DESCRIPTION_WORK,
            descriptions_cut: 0,
            notes: Vec::new(),
            more_cut: 0,
            more_names: 0,
        }
    }

    fn allowance(&mut self, kind: Kind) -> &mut Allowance {
        match kind {
            Kind::Envs => &mut self.envs,
            Kind::Conditions => &mut self.conditions,
        }
    }

    /// Takes one name that costs `cost` bytes, if the allowance has room for it; once one
    /// does not fit, none does.
    pub(super) fn take(&mut self, kind: Kind, cost: usize) -> bool {
        let allowance = self.allowance(kind);
        if allowance.names == 0 || allowance.bytes < cost {
            allowance.names = 0;
            return false;
        }
        allowance.names -= 1;
        allowance.bytes -= cost;
        true
    }

    /// Records that `expression`, which stands for `total` names (`usize::MAX`: at least
    /// that many), made only `made`.
    pub(super) fn cut(&mut self, kind: Kind, expression: &str, total: usize, made: usize) {
        let allowance = self.allowance(kind);
        if allowance.told {
            self.more_cut += 1;
            self.more_names = self.more_names.saturating_add(total - made);
            return;
        }
        allowance.told = true;
        if total == 1 && made == 0 {
            let note = format!(
                "`{}` and what follows it are not read (at most {} {} in all, of at most {} \
                 MiB, per file)",
                shorten(expression),
                allowance.limit,
                allowance.what,
                MAX_NAME_BYTES >> 20,
            );
            self.notes.push(note);
            return;
        }
        let total = match total {
            usize::MAX => format!("at least {}", usize::MAX),
            n => n.to_string(),
        };
        let made = match made {
            0 => "none is read".to_owned(),
            n => format!("only the first {n} are read"),
        };
        let note = format!(
            "`{}` stands for {total} {}; {made} (at most {} in all, of at most {} MiB, per \
             file)",
            shorten(expression),
            allowance.what,
            allowance.limit,
            MAX_NAME_BYTES >> 20,
        );
        self.notes.push(note);
    }

    /// Records that a range (`what`, of `count` numbers) was cut.
    pub(super) fn range_cut(&mut self, what: impl FnOnce() -> String, count: u64) {
        match &mut self.ranges_cut {
            Some((_, n)) => *n += 1,
            None => {
                self.ranges_cut = Some((format!("a range of {count} numbers in {}", what()), 1))
            }
        }
    }

    /// Whether describing one more env, at `cost`, fits the work left.
    pub(super) fn describe(&mut self, cost: usize) -> bool {
        if self.work < cost {
            self.work = 0;
            return false;
        }
        self.work -= cost;
        true
    }

    /// The notes that say what was cut.
    pub(crate) fn into_notes(self) -> Vec<String> {
        let mut notes = self.notes;
        if self.more_cut > 0 {
            let names = match self.more_names {
                usize::MAX => format!("at least {}", usize::MAX),
                n => n.to_string(),
            };
            notes.push(format!(
                "{} more expressions past those limits are cut ({names} names not read)",
                self.more_cut
            ));
        }
        if let Some((first, count)) = self.ranges_cut {
            let others = match count {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            notes.push(format!(
                "{first}{others} cut: ranges are written out to at most {MAX_ENVS} numbers \
                 each and {MAX_RANGE_NUMBERS} in all, per file; their other numbers are not read"
            ));
        }
        if self.descriptions_cut > 0 {
            notes.push(format!(
                "{} envs are listed without their description: describing the file's envs \
                 passed {} MiB of work",
                self.descriptions_cut,
                MAX_DESCRIPTION_WORK >> 20
            ));
        }
        notes
    }
}

/// An expression as a note shows it: its first 60 characters.
pub(crate) fn shorten(expression: &str) -> String {
    match expression.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &expression[..at]),
        None => expression.to_owned(),
    }
}
