//! The runner model: a detected runner and its tasks.

use std::collections::HashSet;

use serde::Serialize;

use crate::detection::{Arguments, RunnerDef, Words};

/// A task runner found in a project, with its tasks.
#[derive(Debug, Clone, Serialize)]
pub struct Runner {
    /// Fixed id: `just`, `pkg`, `cargo`, `make` or `task`.
    pub id: &'static str,
    /// Display label: `Just`, `Pkg`, `Cargo`, `Make` or `Task`.
    pub label: &'static str,
    /// What every task's command starts with (`just`, `pnpm run`, `make`).
    pub command_prefix: String,
    /// How words after the task name reach the task.
    #[serde(skip)]
    pub tail_rule: TailRule,
    /// The tasks, in the order the runner lists them.
    pub tasks: Vec<Task>,
    /// Things detection left out, with why (a workspace match outside the root, a broken
    /// package manifest), shown by `recipe list --explain`.
    #[serde(skip)]
    pub notes: Vec<String>,
    /// The names in `tasks`, so a duplicate is found without a scan.
    #[serde(skip)]
    names: HashSet<String>,
}

/// Runners are equal when all but their name index are: the index follows from `tasks`,
/// and is built only when a task is pushed after [`Runner::extend_first`].
impl PartialEq for Runner {
    fn eq(&self, other: &Self) -> bool {
        let Self {
            id,
            label,
            command_prefix,
            tail_rule,
            tasks,
            notes,
            names: _,
        } = self;
        *id == other.id
            && *label == other.label
            && *command_prefix == other.command_prefix
            && *tail_rule == other.tail_rule
            && *tasks == other.tasks
            && *notes == other.notes
    }
}

impl Eq for Runner {}

/// A runner's tasks by name (the first of a name), for answers about a task's siblings.
#[derive(Debug)]
pub struct TaskIndex<'a> {
    by_name: std::collections::HashMap<&'a str, &'a Task>,
}

impl<'a> TaskIndex<'a> {
    /// The index of `runner`'s tasks.
    pub fn of(runner: &'a Runner) -> Self {
        let mut by_name = std::collections::HashMap::with_capacity(runner.tasks.len());
        for task in &runner.tasks {
            by_name.entry(task.name.as_str()).or_insert(task);
        }
        Self { by_name }
    }

    /// The task named `name`.
    pub fn get(&self, name: &str) -> Option<&'a Task> {
        self.by_name.get(name).copied()
    }
}

/// The aside tasks ([`Runner::is_aside`]) of some runners, found with one index per runner:
/// a caller that asks of every task (the prompt) would otherwise index once a task, which
/// for a manifest of 60,000 scripts took 25 s.
#[derive(Debug, Default)]
pub struct Asides {
    /// The tasks' addresses: a task is the one in its runner, whatever its name.
    tasks: HashSet<usize>,
}

impl Asides {
    /// The asides of `runners`.
    pub fn of<'r>(runners: impl IntoIterator<Item = &'r Runner>) -> Self {
        let mut tasks = HashSet::new();
        for runner in runners {
            let Some(def) = runner.def() else {
                continue;
            };
            let index = TaskIndex::of(runner);
            for task in &runner.tasks {
                if (def.is_aside)(&index, task) {
                    tasks.insert(std::ptr::from_ref(task) as usize);
                }
            }
        }
        Self { tasks }
    }

    /// Whether `task`, one of the runners' own, is an aside.
    pub fn contains(&self, task: &Task) -> bool {
        self.tasks.contains(&(std::ptr::from_ref(task) as usize))
    }
}

/// One task of a runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// What an op selects (`test`, `web/dev`, `sub/hello`, `bin/server`).
    pub name: String,
    /// The shell command that runs it, before any arguments.
    pub command: String,
    /// One line saying what it does, from the repository.
    pub doc: Option<String>,
    /// Its parameters, for display only (`profile='debug'`, `+targets`).
    pub params: Vec<String>,
    /// Where it runs, relative to the root; the root when absent.
    pub cwd: Option<String>,
}

/// How the words after a task name (the op's tail) are put on the command line so that they
/// reach the script, recipe or program unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TailRule {
    /// The tail as written (just, make, cargo, task, bun).
    #[default]
    AsWritten,
    /// `--` goes before a tail that does not start with one: npm reads flags after the
    /// script name as its own settings, and yarn 1 drops the words before a later `--`.
    DashDashFirst,
    /// A leading `--` is removed: pnpm and yarn 4 pass it on to the script literally.
    NoLeadingDashDash,
}

impl Runner {
    /// A runner with no tasks yet.
    pub fn new(id: &'static str, label: &'static str, command_prefix: impl Into<String>) -> Self {
        Self {
            id,
            label,
            command_prefix: command_prefix.into(),
            tail_rule: TailRule::AsWritten,
            tasks: Vec::new(),
            notes: Vec::new(),
            names: HashSet::default(),
        }
    }

    /// The task an op's name selects in this runner, with the command that runs it: a task
    /// of that name, else the task that has it as an alias, else (go-task) a wildcard task
    /// whose pattern matches it, run under the name given.
    pub fn find(&self, name: &str) -> Option<(&Task, std::borrow::Cow<'_, str>)> {
        // A pattern task's command shows its pattern; the pattern matching runs it.
        if let Some(task) = self
            .tasks
            .iter()
            .find(|t| t.name == name && !self.is_pattern(t))
        {
            return Some((task, task.command.as_str().into()));
        }
        if let Some(task) = self
            .tasks
            .iter()
            .find(|t| aliases(t).any(|alias| alias == name))
        {
            return Some((task, task.command.as_str().into()));
        }
        let pattern = self.def().and_then(|def| def.pattern)?;
        let (index, command) = pattern(self, name)?;
        Some((self.tasks.get(index)?, command.into()))
    }

    /// The registered definition of this runner (none for a runner made up by a test).
    pub fn def(&self) -> Option<&'static RunnerDef> {
        RunnerDef::of(self.id)
    }

    /// The command that runs `task` (as `command`, which [`Runner::find`] gave) when words
    /// follow it: the same, except where the runner says otherwise (a just recipe that
    /// cannot take every word gets `--one`, so that a word past its parameters is not run
    /// as another recipe).
    pub fn command_with_words<'c>(
        &self,
        task: &Task,
        command: &'c str,
    ) -> std::borrow::Cow<'c, str> {
        match self.def() {
            Some(def) => (def.with_words)(task, command),
            None => command.into(),
        }
    }

    /// Whether `task` is one of the runner's own commands (cargo's `test`) rather than
    /// something the project defines; a task of the same name in another runner wins.
    pub fn is_builtin(&self, task: &Task) -> bool {
        self.def().is_some_and(|def| (def.is_builtin)(task))
    }

    /// Whether `task` is one a developer rarely types (a lifecycle hook, a target only a
    /// condition make decides defines): shown last, never an example. This indexes the
    /// tasks for one answer; [`Asides`] answers for every task at once.
    pub fn is_aside(&self, task: &Task) -> bool {
        self.def()
            .is_some_and(|def| (def.is_aside)(&TaskIndex::of(self), task))
    }

    /// Whether `task` stands for a pattern whose matches an op names.
    pub fn is_pattern(&self, task: &Task) -> bool {
        self.def().is_some_and(|def| (def.is_pattern)(task))
    }

    /// Which words an agent's allowance lets follow `task`'s command.
    pub fn arguments(&self, task: &Task) -> Arguments {
        self.def()
            .map_or(Arguments::Exact, |def| (def.arguments)(self, task))
    }

    /// How the prompt describes the words after a task's name.
    pub fn words(&self) -> Words {
        self.def().map_or(Words::AsWritten, |def| def.words)
    }

    /// Adds a task unless an op could not name it (empty, or holding whitespace or control
    /// characters) or one of that name exists already (the first one wins); each refusal
    /// is noted.
    pub fn push_task(&mut self, task: Task) {
        let name = task.name.clone();
        if self.push_first(task) == Pushed::Duplicate {
            self.notes.push(format!(
                "task `{name}` is listed twice; the first one is kept"
            ));
        }
    }

    /// Like [`Runner::push_task`] without the note for a repeated name, for runners where a
    /// name may rightly appear several times (make rules).
    pub fn push_first(&mut self, task: Task) -> Pushed {
        if !nameable(&task.name) {
            self.notes.push(format!(
                "task {:?} is left out: an op cannot name a task with whitespace or control \
                 characters in its name",
                task.name
            ));
            return Pushed::Unnameable;
        }
        // Tasks put in by `extend_first` are indexed on the first push after them.
        if self.names.len() != self.tasks.len() {
            self.names = self.tasks.iter().map(|t| t.name.clone()).collect();
        }
        if !self.names.insert(task.name.clone()) {
            return Pushed::Duplicate;
        }
        self.tasks.push(task);
        Pushed::Added
    }

    /// Adds many tasks at once, keeping the first of each name and leaving out names an op
    /// could not name (with a note): like pushing each, without copying names.
    pub fn extend_first(&mut self, tasks: Vec<Task>, repeats: Repeats) {
        let mut keep = Vec::with_capacity(tasks.len());
        {
            // std's SipHash, not a faster hash: the names come from an untrusted file, and
            // a hash an attacker can collide would make this quadratic.
            let mut seen: HashSet<&str> = HashSet::with_capacity(self.tasks.len() + tasks.len());
            seen.extend(self.tasks.iter().map(|t| t.name.as_str()));
            for task in &tasks {
                let nameable = nameable(&task.name);
                if !nameable {
                    self.notes.push(format!(
                        "task {:?} is left out: an op cannot name a task with whitespace or \
                         control characters in its name",
                        task.name
                    ));
                }
                let first = nameable && seen.insert(task.name.as_str());
                if nameable && !first && repeats == Repeats::Note {
                    self.notes.push(format!(
                        "task `{}` is listed twice; the first one is kept",
                        task.name
                    ));
                }
                keep.push(first);
            }
        }
        self.names.clear();
        let mut tasks = tasks;
        let mut keep = keep.into_iter();
        tasks.retain(|_| keep.next().unwrap_or(false));
        if self.tasks.is_empty() {
            self.tasks = tasks;
        } else {
            self.tasks.append(&mut tasks);
        }
    }
}

/// Whether an op can name a task called `name`: not empty, no whitespace or control
/// characters (ASCII names, nearly all of them, are checked byte by byte).
fn nameable(name: &str) -> bool {
    if name.is_ascii() {
        // ASCII whitespace and controls: 0x00..=0x20 and 0x7f.
        return !name.is_empty() && !name.bytes().any(|b| b <= b' ' || b == 0x7f);
    }
    !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// How a task's doc lists its aliases: `… (aliases: b, compile)`.
pub(crate) const ALIASES_OPEN: &str = "(aliases: ";

/// `doc` with the aliases added the way [`aliases`] reads them back.
pub(crate) fn doc_with_aliases(doc: Option<String>, aliases: &[String]) -> Option<String> {
    if aliases.is_empty() {
        return doc;
    }
    let list = format!("{ALIASES_OPEN}{})", aliases.join(", "));
    Some(match doc {
        Some(doc) => format!("{doc} {list}"),
        None => list,
    })
}

/// The aliases a task's doc lists. They live in the doc (the only place a model and a
/// cached listing both keep) rather than as tasks of their own.
pub fn aliases(task: &Task) -> impl Iterator<Item = &str> {
    task.doc
        .as_deref()
        .and_then(|doc| doc.strip_suffix(')'))
        .and_then(|doc| doc.rsplit_once(ALIASES_OPEN))
        .map(|(_, list)| list)
        .into_iter()
        .flat_map(|list| list.split(", "))
        .filter(|alias| !alias.is_empty())
}

/// What [`Runner::push_first`] did with a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// It is now a task.
    Added,
    /// A task of that name was there first.
    Duplicate,
    /// An op could not name it; a note says so.
    Unnameable,
}

/// What [`Runner::extend_first`] says about a name that comes again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// A note says the first one is kept (two packages with one name).
    Note,
    /// Nothing: the runner lists a name once per rule (make).
    Quiet,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Property: the byte check of ASCII names says what the character check says.
    #[test]
    fn nameable_names() {
        let by_chars = |name: &str| {
            !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c.is_control())
        };
        for b in 0u8..=0x7f {
            let name = format!("a{}b", char::from(b));
            assert_eq!(nameable(&name), by_chars(&name), "{b:#x}");
        }
        for name in [
            "",
            "a",
            "web/dev",
            "é",
            "a\u{a0}b",
            "a\u{2028}",
            "a\u{85}",
            "日本",
        ] {
            assert_eq!(nameable(name), by_chars(name), "{name:?}");
        }
    }
}
