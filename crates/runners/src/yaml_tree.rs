//! A YAML document read into an arena of nodes, for deciding what a runner's own tool
//! would do with it (go-task's Taskfile). Built from yaml-rust2's parser events without
//! recursion, and without copying an alias's node (each alias points at the node its
//! anchor names), so neither a deep nesting nor a "billion laughs" document costs more
//! than its own size.

use yaml_rust2::parser::{Event, Parser};

/// A node of the document: a scalar's decoded text (escapes resolved, tags ignored), or a
/// collection of other nodes, by index.
#[derive(Debug)]
pub(crate) enum Node {
    /// A scalar, as its decoded text.
    Scalar(String),
    /// A sequence of nodes.
    Seq(Vec<usize>),
    /// A mapping: key and value nodes, in order.
    Map(Vec<(usize, usize)>),
}

/// Every document of a YAML stream, its nodes in one arena.
#[derive(Debug)]
pub(crate) struct Tree {
    nodes: Vec<(Node, usize)>,
    roots: Vec<usize>,
}

/// The most nested merge keys (`<<`) followed when resolving a mapping's keys.
const MAX_MERGES: usize = 256;

impl Tree {
    /// Reads `text`, or says where it is not YAML.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut parser = Parser::new_from_str(text);
        let mut tree = Self {
            nodes: Vec::new(),
            roots: Vec::new(),
        };
        let mut anchors: std::collections::HashMap<usize, usize> = Default::default();
        // Open collections, each with the key waiting for its value (mappings only).
        let mut open: Vec<(usize, Option<usize>)> = Vec::new();
        loop {
            let (event, mark) = parser.next_token().map_err(|err| err.to_string())?;
            let line = mark.line();
            let (node, anchor, opens) = match event {
                Event::StreamEnd => break,
                Event::Scalar(text, _, anchor, _) => (Some(Node::Scalar(text)), anchor, false),
                Event::SequenceStart(anchor, _) => (Some(Node::Seq(Vec::new())), anchor, true),
                Event::MappingStart(anchor, _) => (Some(Node::Map(Vec::new())), anchor, true),
                Event::Alias(anchor) => {
                    let target = *anchors
                        .get(&anchor)
                        .ok_or_else(|| format!("line {line}: an alias to no anchor"))?;
                    tree.attach(&mut open, target)?;
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    if let Some((_, Some(_))) = open.pop() {
                        return Err(format!("line {line}: a key without a value"));
                    }
                    continue;
                }
                _ => (None, 0, false),
            };
            let Some(node) = node else {
                continue;
            };
            let index = tree.nodes.len();
            tree.nodes.push((node, line));
            if anchor > 0 {
                anchors.insert(anchor, index);
            }
            tree.attach(&mut open, index)?;
            if opens {
                open.push((index, None));
            }
        }
        Ok(tree)
    }

    /// Adds node `index` to the innermost open collection, or as a document's root.
    fn attach(&mut self, open: &mut [(usize, Option<usize>)], index: usize) -> Result<(), String> {
        let Some((parent, pending)) = open.last_mut() else {
            self.roots.push(index);
            return Ok(());
        };
        match &mut self.nodes[*parent].0 {
            Node::Seq(items) => items.push(index),
            Node::Map(entries) => match pending.take() {
                None => *pending = Some(index),
                Some(key) => entries.push((key, index)),
            },
            Node::Scalar(_) => return Err("a scalar holding a node".into()),
        }
        Ok(())
    }

    /// The root node of each document.
    pub(crate) fn roots(&self) -> &[usize] {
        &self.roots
    }

    /// Node `index`.
    pub(crate) fn node(&self, index: usize) -> &Node {
        &self.nodes[index].0
    }

    /// The line (1-based) node `index` starts on.
    pub(crate) fn line(&self, index: usize) -> usize {
        self.nodes[index].1
    }

    /// The text of node `index`, when it is a scalar.
    pub(crate) fn scalar(&self, index: usize) -> Option<&str> {
        match &self.nodes[index].0 {
            Node::Scalar(text) => Some(text),
            _ => None,
        }
    }

    /// The entries of mapping `index` as a YAML reader with merge keys sees them: its own
    /// entries, then those that its `<<` keys bring in (a mapping or a sequence of
    /// mappings, themselves merged), as go-task's YAML library resolves them.
    pub(crate) fn entries(&self, index: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut todo = vec![index];
        let mut seen = 0;
        while let Some(map) = todo.pop() {
            seen += 1;
            if seen > MAX_MERGES {
                break;
            }
            let Node::Map(entries) = &self.nodes[map].0 else {
                continue;
            };
            for &(key, value) in entries {
                if self.scalar(key) != Some("<<") {
                    out.push((key, value));
                    continue;
                }
                match &self.nodes[value].0 {
                    Node::Map(_) => todo.push(value),
                    Node::Seq(items) => todo.extend(items.iter().rev()),
                    Node::Scalar(_) => out.push((key, value)),
                }
            }
        }
        out
    }

    /// The value of key `name` in mapping `index` (merge keys resolved), if any.
    pub(crate) fn get(&self, index: usize, name: &str) -> Option<usize> {
        self.entries(index)
            .into_iter()
            .find(|&(key, _)| self.scalar(key) == Some(name))
            .map(|(_, value)| value)
    }

    /// The first key named `name` in any mapping of the stream, with its line.
    pub(crate) fn first_key(&self, name: &str) -> Option<usize> {
        self.nodes
            .iter()
            .filter_map(|(node, _)| match node {
                Node::Map(entries) => Some(entries),
                _ => None,
            })
            .flatten()
            .map(|&(key, _)| key)
            .filter(|&key| self.scalar(key) == Some(name))
            .min_by_key(|&key| self.line(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top_keys(text: &str) -> Vec<String> {
        let tree = Tree::parse(text).expect("yaml");
        tree.entries(tree.roots()[0])
            .into_iter()
            .filter_map(|(k, _)| tree.scalar(k).map(str::to_owned))
            .collect()
    }

    /// Property: every spelling of a key reads as the key: quoted, escaped, JSON, tagged,
    /// an alias to an anchored scalar, brought in by a merge key (directly, through an
    /// alias, or from a sequence of mappings).
    #[test]
    fn keys_in_every_spelling() {
        assert_eq!(top_keys("\"dotenv\": [a]\n"), ["dotenv"]);
        assert_eq!(top_keys("\"dot\\u0065nv\": [a]\n"), ["dotenv"]);
        assert_eq!(top_keys("{\"dotenv\": [\"a\"]}"), ["dotenv"]);
        assert_eq!(top_keys("!!str dotenv: [a]\n"), ["dotenv"]);
        assert_eq!(top_keys("x: &k dotenv\n*k : [a]\n"), ["x", "dotenv"]);
        assert_eq!(top_keys("<<: {dotenv: [a]}\n"), ["dotenv"]);
        assert_eq!(
            top_keys("x: &m {dotenv: [a]}\ny: 1\n<<: [*m, {z: 2}]\n"),
            ["x", "y", "dotenv", "z"]
        );
        assert_eq!(
            top_keys("x: &m {<<: {dotenv: [a]}}\n<<: *m\n"),
            ["x", "dotenv"]
        );
    }

    /// Property: aliases share their node, so a "billion laughs" document stays its size.
    #[test]
    fn aliases_are_not_copied() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..40 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let tree = Tree::parse(&text).expect("yaml");
        assert!(tree.nodes.len() < 200, "{}", tree.nodes.len());
    }

    /// Property: nesting is read without recursion of ours; past the parser's limit (a
    /// few hundred levels, far beyond any Taskfile) it is an error, not a crash.
    #[test]
    fn deep_nesting() {
        let text = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(Tree::parse(&text).expect("yaml").roots().len(), 1);
        let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(Tree::parse(&text).is_err());
        assert!(Tree::parse("a: [\n").is_err());
    }

    proptest::proptest! {
        /// Property: any text made of YAML's punctuation reads as a tree or an error,
        /// never a panic, and every merge resolves within its bound.
        #[test]
        fn any_text_is_a_tree_or_an_error(text in "[-:{}\\[\\],&*!<>'\"?|#a-z0-9\n ]{0,300}") {
            if let Ok(tree) = Tree::parse(&text) {
                for &root in tree.roots() {
                    let _ = tree.entries(root);
                }
                let _ = tree.first_key("sh");
            }
        }
    }
}
