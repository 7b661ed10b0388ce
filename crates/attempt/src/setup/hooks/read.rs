//! Reading a file of a setup's products as the rules compare it.

use std::path::Path;

/// Files of a product a rule reads whole at most this large; a larger one reads as
/// nothing (and a rule that must read it refuses it). Comparing reads any size.
const MAX_BYTES: u64 = 16 << 20;

/// What is at `path` of `root`: a link's target (marked), a file's bytes (bounded), `None`
/// when nothing is there or it cannot be read.
pub(super) fn content(root: &Path, path: &str) -> Option<Vec<u8>> {
    let full = root.join(path);
    let meta = full.symlink_metadata().ok()?;
    if meta.is_symlink() {
        let target = std::fs::read_link(&full).ok()?;
        let mut out = b"link:".to_vec();
        out.extend(target.to_string_lossy().as_bytes());
        return Some(out);
    }
    speccoder_foundation::files::read_inside(root, &full, MAX_BYTES).ok()
}

/// Whether `a` of `root_a` and `b` of `root_b` are the same: both links to one target, or
/// both regular files of the same bytes, compared a block at a time (a wheel's shared
/// library is hundreds of MiB). Anything else (missing, a FIFO, a folder) is not the same.
pub(super) fn same(root_a: &Path, a: &str, root_b: &Path, b: &str) -> bool {
    let (a, b) = (root_a.join(a), root_b.join(b));
    let (Ok(meta_a), Ok(meta_b)) = (a.symlink_metadata(), b.symlink_metadata()) else {
        return false;
    };
    if meta_a.is_symlink() || meta_b.is_symlink() {
        return meta_a.is_symlink()
            && meta_b.is_symlink()
            && std::fs::read_link(&a).ok() == std::fs::read_link(&b).ok();
    }
    if !meta_a.is_file() || !meta_b.is_file() || meta_a.len() != meta_b.len() {
        return false;
    }
    let (Ok(mut file_a), Ok(mut file_b)) = (std::fs::File::open(&a), std::fs::File::open(&b))
    else {
        return false;
    };
    let (mut block_a, mut block_b) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let Ok(n) = read_full(&mut file_a, &mut block_a) else {
            return false;
        };
        if read_full(&mut file_b, &mut block_b[..n]).ok() != Some(n) || block_a[..n] != block_b[..n]
        {
            return false;
        }
        if n < block_a.len() {
            return true;
        }
    }
}

/// Reads into `buf` until it is full or the file ends; how much was read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut done = 0;
    while done < buf.len() {
        match file.read(&mut buf[done..])? {
            0 => break,
            n => done += n,
        }
    }
    Ok(done)
}
