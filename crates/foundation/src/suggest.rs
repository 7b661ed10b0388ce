//! "Did you mean …": the known name closest to one that is not known, when it is close
//! enough to be a likely typo.

/// The name in `known` closest to `wanted`: within an edit distance of a third of its
/// length (at least 1), or one of which the other is a prefix up to a `-` or `_`
/// (`claude-code` for `claude`). Ties go to the first name.
pub fn closest<'k>(wanted: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let limit = (wanted.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for name in known {
        let distance = if is_prefix_word(name, wanted) || is_prefix_word(wanted, name) {
            1
        } else {
            edit_distance(wanted, name)
        };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, name));
        }
    }
    best.map(|(_, name)| name)
}

/// Whether `long` is `short` followed by a `-` or `_` and more.
fn is_prefix_word(short: &str, long: &str) -> bool {
    !short.is_empty()
        && long
            .strip_prefix(short)
            .is_some_and(|rest| rest.starts_with(['-', '_']))
}

/// Edit distance over characters where a swap of two neighbours counts as one edit (the
/// optimal string alignment distance), since swapped letters are the commonest typo.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("test", "tests"), 1);
        assert_eq!(edit_distance("tset", "test"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn close_names() {
        #[track_caller]
        fn case(wanted: &str, known: &[&str], want: Option<&str>) {
            assert_eq!(closest(wanted, known.iter().copied()), want, "{wanted}");
        }
        let kinds = ["native", "claude", "codex", "command"];
        case("claude-code", &kinds, Some("claude"));
        case("cladue", &kinds, Some("claude"));
        case("codx", &kinds, Some("codex"));
        case("gpt", &kinds, None);
        case("", &kinds, None);
        case("recipes", &["recipe", "executor"], Some("recipe"));
        case(
            "timeout",
            &["timeout_secs", "task_limit"],
            Some("timeout_secs"),
        );
        case("bogus_key", &["enabled", "runners", "cache"], None);
    }
}
