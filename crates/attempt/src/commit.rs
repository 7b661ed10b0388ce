//! The last stage: a pass becomes one commit on the attempt's branch, holding exactly the
//! tree the checks ran on (the task ticked in it), brought into the user's repository by
//! speccoder; then the attempt's folder is removed, or kept with `--keep-worktree`.

use super::shared::{AttemptRequest, MAX_READ_BYTES, Prepared, Story, Verdict};
/// What a passing attempt hands to the commit: the tree its checks ran on.
#[derive(Debug, Default)]
pub(crate) struct PassTree {
    /// The tree the checks ran on, without the withheld tests: what a pass commits.
    pub(crate) tree: String,
    /// The agent's summary.
    pub(crate) summary: String,
    /// Notes of the audit.
    pub(crate) notes: Vec<String>,
}

use super::tasks_file;

/// The tasks file of the base with this task ticked, as a blob (mode, object), when the
/// file has the task's checkbox.
pub(crate) fn ticked(prepared: &Prepared, tasks_path: &str) -> Option<(String, String)> {
    let entry = prepared
        .store
        .entries(&prepared.base)
        .ok()?
        .into_iter()
        .find(|e| e.path == tasks_path)?;
    let bytes = prepared
        .store
        .read_blobs(std::slice::from_ref(&entry.object), MAX_READ_BYTES)
        .ok()?
        .pop()??;
    let ticked = tasks_file::tick(&bytes, &prepared.bundle.bundle.task.id)?;
    let blob = prepared.store.blob(&ticked).ok()?;
    Some((entry.mode, blob))
}

/// Commits the passing attempt's tree on the branch in the user's repository. When it
/// cannot, the run is failed, and its last record says why.
pub(crate) fn commit(
    story: &mut Story,
    prepared: &Prepared,
    request: &AttemptRequest<'_>,
    pass: &PassTree,
    n: u32,
) {
    let task = &prepared.bundle.bundle.task;
    let mut message = format!("{}: {}\n", task.id, task.title.trim());
    if !pass.summary.trim().is_empty() {
        message.push('\n');
        message.push_str(pass.summary.trim());
        message.push('\n');
    }
    message.push_str(&format!(
        "\nAttempt: {n} of {}\n",
        request.config.attempt.max_attempts
    ));
    let made = prepared
        .store
        .commit(&pass.tree, &prepared.base, &message)
        .and_then(|commit| {
            // A run killed from here on has made its pass: the next run records it so.
            prepared.running.record_commit(&prepared.branch, &commit);
            prepared.store.run(&[
                "update-ref",
                &format!("refs/heads/{}", prepared.branch),
                &commit,
            ])?;
            prepared
                .repo
                .fetch_branch(prepared.store.dir(), &prepared.branch)?;
            Ok(commit)
        });
    match made {
        Ok(commit) => {
            story.commit = Some(commit);
            story.branch = Some(prepared.branch.clone());
            if request.keep_worktree {
                story.worktree = Some(prepared.tree.clone());
            }
        }
        Err(err) => {
            let why = format!("the passing attempt could not be committed: {err}");
            story.verdict = Verdict::Failed;
            if let Some(record) = story.attempts.last_mut() {
                record.verdict = Verdict::Failed;
                record.reason.clone_from(&why);
            }
            story.notes.push(why);
        }
    }
}

/// Removes the attempt's folder, or keeps it (`--keep-worktree`), and clears the mark
/// that the run is in progress.
pub(crate) fn finish(story: &mut Story, prepared: Prepared, keep: bool) {
    let Prepared {
        folder, running, ..
    } = prepared;
    if keep {
        let _ = folder.keep();
    } else if let Err(err) = folder.close() {
        story
            .notes
            .push(format!("cannot remove the attempt's folder: {err}"));
    }
    drop(running);
}
