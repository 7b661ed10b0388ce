//! Bounded capture of one output stream.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

/// What was captured of one stream: its first and last bytes, how many bytes it had in all,
/// and where the whole stream was written when the caller asked for that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// The first bytes of the stream, at most the head size.
    pub head: Vec<u8>,
    /// The last bytes of the stream that are not in `head`, at most the tail size.
    pub tail: Vec<u8>,
    /// Every byte the stream carried, kept or not.
    pub total_bytes: u64,
    /// The file holding the whole stream, when one was asked for.
    pub spill: Option<Spill>,
}

/// The file a stream was written to in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spill {
    /// Where the file is.
    pub path: PathBuf,
    /// How many bytes reached the file.
    pub bytes_written: u64,
    /// Why the file is shorter than the stream, when it is (its size cap, a write error).
    pub incomplete: Option<String>,
}

impl Captured {
    /// Bytes that are in neither the head nor the tail.
    pub fn omitted_bytes(&self) -> u64 {
        self.total_bytes - (self.head.len() + self.tail.len()) as u64
    }

    /// Whether anything was left out between head and tail.
    pub fn is_truncated(&self) -> bool {
        self.omitted_bytes() > 0
    }

    /// The whole stream when nothing was left out, as lossy UTF-8.
    pub fn text(&self) -> String {
        let mut bytes = self.head.clone();
        bytes.extend_from_slice(&self.tail);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The head and the tail as lossy UTF-8, each cut on a character boundary so no
    /// replacement character is made up at the seam.
    pub fn head_and_tail_text(&self) -> (String, String) {
        let head_end = utf8_prefix_len(&self.head);
        let tail_start = utf8_suffix_start(&self.tail);
        (
            String::from_utf8_lossy(&self.head[..head_end]).into_owned(),
            String::from_utf8_lossy(&self.tail[tail_start..]).into_owned(),
        )
    }
}

/// The length of `bytes` without a multi-byte character cut off at its end.
fn utf8_prefix_len(bytes: &[u8]) -> usize {
    // A UTF-8 character is at most four bytes, so only the last three can be an unfinished one.
    for back in 1..=3.min(bytes.len()) {
        let at = bytes.len() - back;
        let byte = bytes[at];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let width = match byte {
            b if b & 0xE0 == 0xC0 => 2,
            b if b & 0xF0 == 0xE0 => 3,
            b if b & 0xF8 == 0xF0 => 4,
            _ => 1,
        };
        return if back < width { at } else { bytes.len() };
    }
    bytes.len()
}

/// Where `bytes` starts once continuation bytes of a character cut off at its start are
/// skipped.
fn utf8_suffix_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .position(|b| b & 0xC0 != 0x80)
        .unwrap_or(0)
}

/// Keeps the head and a ring of the tail of a stream, counts every byte and optionally
/// writes every byte to a file.
///
/// With a file, every byte is also written to it as it comes, up to the file's cap.
#[derive(Debug)]
pub(crate) struct StreamCapture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    ring: Vec<u8>,
    /// Where the next tail byte goes in `ring` once it is full.
    ring_pos: usize,
    total: u64,
    spill: Option<SpillWriter>,
}

#[derive(Debug)]
struct SpillWriter {
    path: PathBuf,
    file: Option<File>,
    written: u64,
    max_bytes: u64,
    incomplete: Option<String>,
}

impl StreamCapture {
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        Self {
            head_cap,
            tail_cap,
            head: Vec::new(),
            ring: Vec::new(),
            ring_pos: 0,
            total: 0,
            spill: None,
        }
    }

    /// Also writes the whole stream, up to `max_bytes`, to the file at `path` (created or
    /// truncated now).
    pub(crate) fn with_spill(mut self, path: PathBuf, max_bytes: u64) -> std::io::Result<Self> {
        // Not `File::create`: opening with O_TRUNC marks the file on ext4 (auto_da_alloc) so
        // that its close starts writeback of everything written, which took 380 ms after
        // 1 GiB here. The file is normally new and empty; one with bytes is emptied first.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        if file.metadata()?.len() > 0 {
            file.set_len(0)?;
        }
        self.spill = Some(SpillWriter {
            path,
            file: Some(file),
            written: 0,
            max_bytes,
            incomplete: None,
        });
        Ok(self)
    }

    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        if self.head.len() < self.head_cap {
            let take = chunk.len().min(self.head_cap - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if self.tail_cap == 0 || chunk.is_empty() {
            return;
        }
        if chunk.len() >= self.tail_cap {
            self.ring.clear();
            self.ring
                .extend_from_slice(&chunk[chunk.len() - self.tail_cap..]);
            self.ring_pos = 0;
            return;
        }
        if self.ring.len() < self.tail_cap {
            let take = chunk.len().min(self.tail_cap - self.ring.len());
            self.ring.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        // The ring is full: overwrite the oldest bytes, wrapping at most once.
        while !chunk.is_empty() {
            let room = self.tail_cap - self.ring_pos;
            let take = chunk.len().min(room);
            self.ring[self.ring_pos..self.ring_pos + take].copy_from_slice(&chunk[..take]);
            self.ring_pos = (self.ring_pos + take) % self.tail_cap;
            chunk = &chunk[take..];
        }
    }

    pub(crate) fn finish(self) -> Captured {
        let mut ring = self.ring;
        ring.rotate_left(self.ring_pos);
        Captured {
            head: self.head,
            tail: ring,
            total_bytes: self.total,
            spill: self.spill.map(SpillWriter::finish),
        }
    }
}

impl SpillWriter {
    fn write(&mut self, chunk: &[u8]) {
        let Some(file) = &mut self.file else {
            return;
        };
        let room = self.max_bytes - self.written;
        let take = chunk.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        match file.write_all(&chunk[..take]) {
            Ok(()) => self.written += take as u64,
            Err(err) => {
                // A full disk must not stop the capture: stop writing, say why, keep counting.
                self.incomplete = Some(format!("write failed: {err}"));
                self.file = None;
                return;
            }
        }
        if take < chunk.len() {
            self.full();
        }
    }

    fn full(&mut self) {
        self.incomplete = Some(format!("stopped at its cap of {} bytes", self.max_bytes));
        self.file = None;
    }

    fn finish(self) -> Spill {
        Spill {
            path: self.path,
            bytes_written: self.written,
            incomplete: self.incomplete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(head: usize, tail: usize, chunks: &[&[u8]], want_head: &[u8], want_tail: &[u8]) {
        let mut capture = StreamCapture::new(head, tail);
        for chunk in chunks {
            capture.push(chunk);
        }
        let got = capture.finish();
        assert_eq!(got.head, want_head);
        assert_eq!(got.tail, want_tail);
        let total: usize = chunks.iter().map(|c| c.len()).sum();
        assert_eq!(got.total_bytes, total as u64);
    }

    #[test]
    fn keeps_head_and_tail() {
        case(4, 4, &[b"abc"], b"abc", b"");
        case(4, 4, &[b"abcdefgh"], b"abcd", b"efgh");
        case(4, 4, &[b"abcdefghij"], b"abcd", b"ghij");
        case(
            2,
            3,
            &[b"a", b"b", b"c", b"d", b"e", b"f", b"g"],
            b"ab",
            b"efg",
        );
        case(2, 3, &[b"abcd", b"ef", b"g"], b"ab", b"efg");
        case(0, 3, &[b"abcd", b"efghijk"], b"", b"ijk");
        case(3, 0, &[b"abcd", b"efghijk"], b"abc", b"");
        case(1, 4, &[b"a", b"bc", b"de", b"fg", b"h"], b"a", b"efgh");
    }

    proptest::proptest! {
        /// Property: the capture counts exactly the bytes written, keeps no more than its
        /// caps, and what it keeps is the stream's true head and tail.
        #[test]
        fn counts_and_caps(
            chunks in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..300), 0..40),
            head_cap in 0usize..200,
            tail_cap in 0usize..200,
        ) {
            let mut capture = StreamCapture::new(head_cap, tail_cap);
            let mut all = Vec::new();
            for chunk in &chunks {
                capture.push(chunk);
                all.extend_from_slice(chunk);
            }
            let got = capture.finish();
            proptest::prop_assert_eq!(got.total_bytes, all.len() as u64);
            proptest::prop_assert!(got.head.len() <= head_cap && got.tail.len() <= tail_cap);
            let head_len = all.len().min(head_cap);
            proptest::prop_assert_eq!(&got.head[..], &all[..head_len]);
            let tail_len = (all.len() - head_len).min(tail_cap);
            proptest::prop_assert_eq!(&got.tail[..], &all[all.len() - tail_len..]);
        }
    }

    #[test]
    fn text_seams_do_not_invent_replacement_characters() {
        let capture = Captured {
            head: "aé".as_bytes()[..2].to_vec(),
            tail: "éb".as_bytes()[1..].to_vec(),
            total_bytes: 10,
            spill: None,
        };
        assert_eq!(capture.head_and_tail_text(), ("a".into(), "b".into()));
        assert_eq!(utf8_prefix_len("a€".as_bytes()), 4);
        assert_eq!(utf8_prefix_len(&"a€".as_bytes()[..3]), 1);
    }
}
