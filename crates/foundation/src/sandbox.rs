//! The sandbox an attempt's agent and checks run in: private mount and PID namespaces in
//! which the whole file system is read-only except the folders named writable, `/tmp`,
//! `/var/tmp` and `/dev/shm` are fresh and private, hidden folders are empty, and chosen
//! files are read-only even inside a writable folder; the command runs with every
//! capability dropped, so it can undo none of it.
//!
//! The chain of processes, and why each link is there:
//! - `setpriv --pdeathsig KILL` makes the next link die with speccoder, even when speccoder
//!   is killed with SIGKILL (the signal survives the `exec` of `unshare`);
//! - `unshare … --pid --fork --kill-child` makes the namespaces and forks their first
//!   process, which it kills when it dies itself;
//! - `speccoder __sandbox SPEC` (this module's [`main`]) is that first process: it makes the
//!   mounts, starts the command through `setpriv` with no capabilities, and exits with the
//!   command's status. When it exits, the kernel kills every process left in the namespace,
//!   so nothing the command started outlives it.
//!
//! Measured on this kind of machine (everything runs as root): device files stay usable on
//! a read-only `/dev`; a read-only bind of a file cannot be written, removed or renamed
//! over; without capabilities `umount` fails, and `/proc/<pid>/root` of processes outside
//! is out of reach.

#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::process::Command;
use std::time::Duration;

#[cfg(target_os = "linux")]
use rustix::mount::{MountFlags, mount, mount_bind, mount_remount};
use serde::{Deserialize, Serialize};

use crate::process::{LocalSpawner, RunOutput, RunRequest, SpawnError, Spawner, StartMode};

/// The folders made private: `/dev/shm` gets a fresh tmpfs, `/tmp` and `/var/tmp` an
/// overlay whose writes stay in the namespace (in this order: the overlays' layers live in
/// the fresh `/dev/shm`).
#[cfg(target_os = "linux")]
const PRIVATE_TMP: &[&str] = &["/dev/shm", "/tmp", "/var/tmp"];

/// Why there is no sandbox on a platform other than Linux.
const NO_NAMESPACES: &str = "this platform has no mount and PID namespaces (Linux only)";

/// Why this machine makes no sandbox.
#[derive(Debug, thiserror::Error)]
pub enum NamespacesError {
    /// The platform has no mount and PID namespaces.
    #[error("{NO_NAMESPACES}")]
    Unsupported,
    /// `SPECCODER_ISOLATION=none` in speccoder's environment.
    #[error("turned off by SPECCODER_ISOLATION=none")]
    TurnedOff,
    /// The folder to try them in could not be made.
    #[error("cannot make a folder to try them in: {0}")]
    Io(#[from] std::io::Error),
    /// The system refused them, with what the try printed.
    #[error("no private mount namespace could be made{}", if why.is_empty() { String::new() } else { format!(": {why}") })]
    Refused {
        /// What the try printed, or why it could not start; may be empty.
        why: String,
    },
}

/// The exit status of the sandbox's first process when it could not make the sandbox.
pub const SETUP_FAILED: i32 = 125;

/// How the namespaces are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Namespaces {
    /// As root: mount and PID namespaces directly.
    Root,
    /// As another user: inside a new user namespace mapping the user to root.
    User,
}

/// What a sandbox lets its command write and see.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    /// Folders and files that stay writable (they must exist).
    pub writable: Vec<PathBuf>,
    /// Folders covered by an empty read-only tmpfs.
    pub hidden: Vec<PathBuf>,
    /// Files made read-only where they are, even inside a writable folder.
    pub read_only: Vec<PathBuf>,
    /// A writable folder (a tree) seen at a second, fixed path too, where its command
    /// runs: what `[attempt] setup` wrote into its tree (a `.pth`, a venv's scripts) names
    /// that path, and so finds each check's tree there.
    #[serde(default)]
    pub tree_at: Option<TreeAt>,
    /// The most the private `/tmp`, `/var/tmp` and `/dev/shm` may hold together, in MiB
    /// (their writes all land in one tmpfs); `None` leaves the kernel's default, half the
    /// memory. Past it a write fails with "No space left on device".
    #[serde(default)]
    pub tmp_mib: Option<u64>,
    /// A network namespace of its own, with only loopback up: the machine's network, its
    /// listening ports and every abstract unix socket are out of reach.
    #[serde(default)]
    pub private_network: bool,
    /// Folders seen through a copy-on-write overlay, as `/tmp` is: what is there is read,
    /// what the command writes stays in the namespace (in the private `/dev/shm`, within
    /// `tmp_mib`). The runners' caches: a cold or read-only cache costs time, never a
    /// failure, and code under test cannot poison yours.
    #[serde(default)]
    pub overlays: Vec<PathBuf>,
    /// Where the written layers of `overlays` are kept between sandboxes, each in a folder
    /// of its own named by its cache's path ([`CacheLayers::folder`]).
    #[serde(default)]
    pub cache_layers: Option<CacheLayers>,
    /// Places shown as they are (read-only) though a hidden folder holds them: bound again
    /// inside it.
    #[serde(default)]
    pub shown: Vec<PathBuf>,
}

/// The kept layers of the caches' overlays: what one sandbox (`[attempt] setup`, with
/// `keep`) writes into a cache is kept on disk, and later sandboxes (the checks, without
/// `keep`) read it below their own private layer. What `cargo fetch` or `go mod download`
/// put in a cache during the setup, which has the network, is there for the checks, which
/// have none; your cache is never written either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheLayers {
    /// The folder holding one folder per cache.
    pub dir: PathBuf,
    /// Whether this sandbox writes its layers there (else it reads those that are there).
    pub keep: bool,
}

impl CacheLayers {
    /// The folder of `cache`'s layer: `upper/` (the files) and `work/` (overlayfs' own).
    pub fn folder(&self, cache: &Path) -> PathBuf {
        self.dir.join(format!(
            "{:016x}",
            crate::fnv1a(cache.as_os_str().as_encoded_bytes())
        ))
    }
}

/// A tree, and the fixed path it is seen at as well.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeAt {
    /// The tree: one of the writable folders.
    pub tree: PathBuf,
    /// An empty folder of speccoder's own, the same for every tree, or a path in a private
    /// tmpfs (`/dev/shm`, `/tmp`), made there.
    pub at: PathBuf,
    /// Whether commands started in the tree run at the fixed path (setup's and the
    /// checks'), or where they are (the agent's, which reads its git checkout there).
    pub run_there: bool,
}

impl TreeAt {
    /// `path` as seen at the fixed path, when it is in the tree.
    pub fn seen(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.tree).ok()?;
        Some(if rel.as_os_str().is_empty() {
            self.at.clone()
        } else {
            self.at.join(rel)
        })
    }
}

/// What the first process reads: the spec and the command.
#[derive(Debug, Serialize, Deserialize)]
struct Launch {
    spec: Spec,
    /// `sh -c` text, or a program and its arguments.
    command: Launched,
    cwd: PathBuf,
}

/// The command inside.
#[derive(Debug, Serialize, Deserialize)]
enum Launched {
    /// Shell text run by `/bin/sh -c`.
    Shell(String),
    /// A program started directly.
    Program(Vec<String>),
}

/// A runner that starts every command inside a sandbox.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// How the namespaces are made.
    pub namespaces: Namespaces,
    /// What the command may write and see.
    pub spec: Spec,
    /// A private folder for the launch files.
    pub scratch: PathBuf,
    /// What runs the sandbox's outer process (its cgroup, deadline and output caps).
    pub inner: LocalSpawner,
}

/// This very program, which is the sandbox's first process.
fn this_program() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("speccoder"))
}

impl Namespaces {
    fn argv(self, launch_file: &Path, private_network: bool) -> Vec<String> {
        let mut argv: Vec<String> = [
            "setpriv",
            "--pdeathsig",
            "KILL",
            "--",
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        if self == Self::User {
            argv.extend(["--user".into(), "--map-root-user".into()]);
        }
        if private_network {
            argv.push("--net".into());
        }
        argv.push("--".into());
        argv.push(this_program().display().to_string());
        argv.push("__sandbox".into());
        argv.push(launch_file.display().to_string());
        argv
    }

    /// The namespaces this machine can make, found by trying them: inside, a writable
    /// folder takes a file, the rest of the file system refuses one, a hidden folder is
    /// empty, and `umount` fails. As root the namespaces are made directly, otherwise in a
    /// user namespace; one that fails is never replaced by the other, which would give
    /// less (a user namespace refuses the overlay on `/tmp`). With the namespaces come
    /// the notes of the mounts covered because they could not be made read-only.
    /// `SPECCODER_ISOLATION=none` in speccoder's own environment skips them, to take the
    /// path macOS takes on purpose (the repository's configuration cannot ask for this).
    pub fn probe() -> Result<(Self, Vec<String>), NamespacesError> {
        if cfg!(not(target_os = "linux")) {
            return Err(NamespacesError::Unsupported);
        }
        if std::env::var_os("SPECCODER_ISOLATION").is_some_and(|v| v == "none") {
            return Err(NamespacesError::TurnedOff);
        }
        let scratch = crate::private_dir::temp_dir("speccoder-probe-")?;
        let root = scratch.path().canonicalize()?;
        let open = root.join("open");
        let hidden = root.join("hidden");
        let closed = root.join("closed");
        for dir in [&open, &hidden, &closed] {
            std::fs::create_dir(dir)?;
        }
        std::fs::write(hidden.join("secret"), "x")?;
        // Inside, `closed` may take a write (an overlay keeps it private), but outside it
        // must not show. The covered mounts are listed last.
        let check = format!(
            "touch {open}/x && {{ touch {closed}/x 2>/dev/null; true; }} && test ! -e {hidden}/secret && ! umount {hidden} 2>/dev/null && test ! -e {hidden}/secret && {{ grep -F ' {COVERED} ' /proc/self/mountinfo | cut -d' ' -f5 | sed 's/^/covered /'; echo ${{{LANDLOCK_NOTE}:+abstract-open}}; true; }}",
            open = crate::quote::single_quote(&open.display().to_string()),
            closed = crate::quote::single_quote(&closed.display().to_string()),
            hidden = crate::quote::single_quote(&hidden.display().to_string()),
        );
        let kind = if rustix::process::geteuid().is_root() {
            Self::Root
        } else {
            Self::User
        };
        let sandbox = Sandbox {
            namespaces: kind,
            spec: Spec {
                writable: vec![open.clone()],
                hidden: vec![hidden.clone()],
                private_network: true,
                ..Spec::default()
            },
            scratch: root.clone(),
            inner: LocalSpawner::default(),
        };
        let request = RunRequest::new(check, &root, Duration::from_secs(10));
        let why = match sandbox.run(&request) {
            Ok(out) if out.success() && open.join("x").exists() && !closed.join("x").exists() => {
                let notes = out
                    .stdout
                    .text()
                    .lines()
                    .filter_map(|l| l.strip_prefix("covered "))
                    .map(|path| format!("{path} is covered by an empty folder in the sandbox: it is a mount that cannot be made read-only"))
                    .chain(out.stdout.text().lines().any(|l| l == "abstract-open").then(|| {
                        "abstract unix sockets outside the sandbox stay open to the agent: this kernel has no Landlock scopes (Linux 6.12); the checks' own network namespace closes them there".to_owned()
                    }))
                    .collect();
                return Ok((kind, notes));
            }
            Ok(out) => {
                let text = format!(
                    "{}{}",
                    out.stdout.text(),
                    out.stderr.as_ref().map(|e| e.text()).unwrap_or_default()
                );
                text.trim().to_owned()
            }
            Err(err) => err.to_string(),
        };
        Err(NamespacesError::Refused { why })
    }
}

impl Spawner for Sandbox {
    fn run(&self, request: &RunRequest) -> Result<RunOutput, SpawnError> {
        let command = match request.start {
            StartMode::DirectOnly => {
                let argv = crate::quote::split_words(&request.command)
                    .ok_or_else(|| SpawnError::NotPlain(request.command.clone()))?;
                // Found here, so that a program that cannot start is told apart from one
                // that runs and exits 127, as it is outside a sandbox.
                if !startable(&argv[0], &request.cwd) {
                    return Err(SpawnError::Start {
                        program: argv[0].clone(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            "not found, or not an executable file",
                        ),
                    });
                }
                Launched::Program(argv)
            }
            StartMode::ShellWhenNeeded => Launched::Shell(request.command.clone()),
        };
        // In a tree seen at a fixed path, the command runs there.
        let cwd = self
            .spec
            .tree_at
            .as_ref()
            .filter(|t| t.run_there)
            .and_then(|t| t.seen(&request.cwd))
            .unwrap_or_else(|| request.cwd.clone());
        let launch = Launch {
            spec: self.spec.clone(),
            command,
            cwd,
        };
        let file = tempfile::Builder::new()
            .prefix("launch-")
            .suffix(".json")
            .tempfile_in(&self.scratch)?;
        serde_json::to_writer(file.as_file(), &launch).map_err(std::io::Error::other)?;
        let argv = self.namespaces.argv(file.path(), self.spec.private_network);
        let mut wrapped = request.clone();
        wrapped.command = argv
            .iter()
            .map(|w| crate::quote::single_quote(w))
            .collect::<Vec<_>>()
            .join(" ");
        // Started directly, so `setpriv --pdeathsig` has speccoder itself as its parent.
        wrapped.start = StartMode::DirectOnly;
        // Temporary files inside go to the private /tmp, and so does state kept across runs
        // (the recipe tool's full outputs): the home folder is read-only there.
        wrapped.env.push(("TMPDIR".into(), "/tmp".into()));
        wrapped
            .env
            .push(("XDG_STATE_HOME".into(), "/tmp/.local/state".into()));
        self.inner.run(&wrapped)
    }
}

/// Whether `program` names an executable file: a path (from `cwd`), or a name on `PATH`.
fn startable(program: &str, cwd: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(&cwd.join(program));
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| executable(&cwd.join(dir).join(program)))
    })
}

/// One line of `/proc/self/mountinfo`: where a mount is, and its per-mount flags.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, PartialEq, Eq)]
struct MountPoint {
    path: PathBuf,
    flags: MountFlags,
}

/// The mount points of `mountinfo` text, with the per-mount flags a read-only remount must
/// keep (a user namespace refuses to clear them).
#[cfg(target_os = "linux")]
fn mount_points(mountinfo: &str) -> Vec<MountPoint> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let path = fields.nth(4)?;
            let options = fields.next()?;
            let mut flags = MountFlags::empty();
            for option in options.split(',') {
                flags |= match option {
                    "nosuid" => MountFlags::NOSUID,
                    "nodev" => MountFlags::NODEV,
                    "noexec" => MountFlags::NOEXEC,
                    "noatime" => MountFlags::NOATIME,
                    "nodiratime" => MountFlags::NODIRATIME,
                    "relatime" => MountFlags::RELATIME,
                    _ => MountFlags::empty(),
                };
            }
            Some(MountPoint {
                path: PathBuf::from(unescape(path)),
                flags,
            })
        })
        .collect()
}

/// Mountinfo writes a space, tab, newline and backslash in a path as `\040`-style octal.
#[cfg(target_os = "linux")]
fn unescape(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let n = bytes[i + 1..i + 4]
                .iter()
                .fold(0u32, |n, b| n * 8 + u32::from(b - b'0'));
            out.push(u8::try_from(n).unwrap_or(b'?'));
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The first process of the sandbox (`speccoder __sandbox LAUNCH`): makes the mounts, runs
/// the command without capabilities, and returns its exit status.
pub fn main(launch_file: &Path) -> i32 {
    #[cfg(not(target_os = "linux"))]
    let enter = |_: &Path| -> Result<i32, String> { Err(NO_NAMESPACES.to_owned()) };
    match enter(launch_file) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("speccoder sandbox: {err}");
            SETUP_FAILED
        }
    }
}

#[cfg(target_os = "linux")]
fn enter(launch_file: &Path) -> Result<i32, String> {
    // `unshare` kills this process when it dies; this covers the moment before.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let text =
        std::fs::read(launch_file).map_err(|err| format!("cannot read the launch: {err}"))?;
    let launch: Launch =
        serde_json::from_slice(&text).map_err(|err| format!("the launch is not valid: {err}"))?;
    make_mounts(&launch.spec)?;
    if launch.spec.private_network {
        loopback_up().map_err(|err| format!("cannot bring loopback up: {err}"))?;
    }
    let mut command = Command::new("setpriv");
    if !close_abstract_sockets()? {
        command.env(LANDLOCK_NOTE, "1");
    }
    command.args([
        "--bounding-set=-all",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--no-new-privs",
        "--",
    ]);
    match &launch.command {
        Launched::Shell(text) => {
            command.args(["/bin/sh", "-c", text]);
        }
        Launched::Program(argv) => {
            command.args(argv);
        }
    }
    command.current_dir(&launch.cwd);
    let status = command
        .status()
        .map_err(|err| format!("cannot start setpriv: {err}"))?;
    Ok(
        match (
            status.code(),
            std::os::unix::process::ExitStatusExt::signal(&status),
        ) {
            (Some(code), _) => code,
            (None, Some(signal)) => 128 + signal,
            (None, None) => 1,
        },
    )
}

/// Set in the command's environment when the kernel cannot close abstract sockets (Linux
/// before 6.12, or Landlock off); the probe reports it.
const LANDLOCK_NOTE: &str = "SPECCODER_SANDBOX_ABSTRACT_OPEN";

/// Closes abstract unix sockets made outside the sandbox (an agent's or a desktop's, a
/// D-Bus bus at `@/tmp/dbus-…`) to this process and everything it starts, with Landlock's
/// scope (ABI 6, Linux 6.12): a mount cannot hide them, and the agent keeps the machine's
/// network namespace to reach its model. `false` when the kernel cannot.
#[cfg(target_os = "linux")]
fn close_abstract_sockets() -> Result<bool, String> {
    use landlock::{Ruleset, RulesetAttr, RulesetStatus, Scope};
    let status = Ruleset::default()
        .scope(Scope::AbstractUnixSocket)
        .and_then(Ruleset::create)
        .and_then(|r| r.restrict_self())
        .map_err(|err| format!("cannot close abstract unix sockets: {err}"))?;
    Ok(status.ruleset == RulesetStatus::FullyEnforced)
}

/// Brings up `lo` (index 1 in every network namespace) with one rtnetlink request, as
/// `ip link set lo up` would, without needing iproute2 inside.
#[cfg(target_os = "linux")]
fn loopback_up() -> Result<(), String> {
    use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketType, netlink};
    const RTM_NEWLINK: u16 = 16;
    const NLM_F_REQUEST_ACK: u16 = 1 | 4;
    const IFF_UP: u32 = 1;
    let socket = rustix::net::socket(AddressFamily::NETLINK, SocketType::RAW, None)
        .map_err(|e| e.to_string())?;
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message.extend_from_slice(&NLM_F_REQUEST_ACK.to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // seq
    message.extend_from_slice(&0u32.to_ne_bytes()); // pid: the kernel fills it
    message.extend_from_slice(&[0, 0, 0, 0]); // ifi_family, pad, ifi_type
    message.extend_from_slice(&1i32.to_ne_bytes()); // ifi_index: lo
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_flags
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // ifi_change
    rustix::net::sendto(
        &socket,
        &message,
        SendFlags::empty(),
        &netlink::SocketAddrNetlink::new(0, 0),
    )
    .map_err(|e| e.to_string())?;
    let mut reply = [0u8; 256];
    let (n, _) =
        rustix::net::recv(&socket, &mut reply, RecvFlags::empty()).map_err(|e| e.to_string())?;
    // An NLMSG_ERROR reply: its header, then the error (0 for the acknowledgement).
    let error = (n >= 20)
        .then(|| i32::from_ne_bytes([reply[16], reply[17], reply[18], reply[19]]))
        .ok_or("a short reply from the kernel")?;
    if error == 0 {
        Ok(())
    } else {
        Err(rustix::io::Errno::from_raw_os_error(-error).to_string())
    }
}

/// Covers `path` (`/tmp`, `/var/tmp`) with an overlay whose upper layer is private (in
/// the fresh `/dev/shm`): what is there stays readable (a tool or a project under `/tmp`
/// still runs), and every write stays in the namespace. `false` when the kernel refuses,
/// and the caller covers it with an empty tmpfs instead.
#[cfg(target_os = "linux")]
fn private_overlay(path: &Path, name: &str) -> bool {
    let layers = PathBuf::from(format!("/dev/shm/.speccoder-overlay-{name}"));
    overlay(path, &layers, None)
}

/// Covers the cache `path` with an overlay: its upper layer kept in `layers`' folder for
/// it when `keep`, else private (as [`private_overlay`]) above the kept one when there is
/// one. A kept layer the kernel refuses leaves the private one.
#[cfg(target_os = "linux")]
fn cache_overlay(path: &Path, name: &str, layers: Option<&CacheLayers>) -> bool {
    let private = PathBuf::from(format!("/dev/shm/.speccoder-overlay-{name}"));
    match layers {
        Some(layers) if layers.keep => {
            overlay(path, &layers.folder(path), None) || overlay(path, &private, None)
        }
        Some(layers) => {
            let kept = layers.folder(path).join("upper");
            let below = kept.is_dir().then_some(kept.as_path());
            overlay(path, &private, below) || overlay(path, &private, None)
        }
        None => overlay(path, &private, None),
    }
}

/// Mounts an overlay on `path` whose upper layer is `layers/upper` (work in
/// `layers/work`), with `below` read between it and `path` when given.
#[cfg(target_os = "linux")]
fn overlay(path: &Path, layers: &Path, below: Option<&Path>) -> bool {
    let (upper, work) = (layers.join("upper"), layers.join("work"));
    // The option's own separators.
    if [Some(path), below, Some(&upper), Some(&work)]
        .into_iter()
        .flatten()
        .any(|p| p.display().to_string().contains([',', ':', '\\']))
    {
        return false;
    }
    let lower = match below {
        Some(below) => format!("{}:{}", below.display(), path.display()),
        None => path.display().to_string(),
    };
    if std::fs::create_dir_all(&upper).is_err() || std::fs::create_dir_all(&work).is_err() {
        return false;
    }
    let Ok(options) = std::ffi::CString::new(format!(
        "lowerdir={lower},upperdir={},workdir={}",
        upper.display(),
        work.display()
    )) else {
        return false;
    };
    mount(
        "speccoder-tmp",
        path,
        "overlay",
        MountFlags::NOSUID | MountFlags::NODEV,
        Some(options.as_c_str()),
    )
    .is_ok()
}

/// Makes the private temporary folders that exist, and returns them.
#[cfg(target_os = "linux")]
fn private_tmp(tmp_mib: Option<u64>) -> Result<Vec<PathBuf>, String> {
    let tmp: Vec<PathBuf> = PRIVATE_TMP
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect();
    // `/dev/shm` first: a fresh tmpfs, which also holds the upper layers below.
    for path in &tmp {
        let name = path.display().to_string().replace('/', "-");
        if path != Path::new("/dev/shm") && private_overlay(path, &name) {
            continue;
        }
        let options = match tmp_mib {
            Some(mib) => format!("mode=1777,size={mib}m"),
            None => "mode=1777".to_owned(),
        };
        let options = std::ffi::CString::new(options).map_err(|e| e.to_string())?;
        mount(
            "speccoder-tmp",
            path,
            "tmpfs",
            MountFlags::NOSUID | MountFlags::NODEV,
            Some(options.as_c_str()),
        )
        .map_err(|e| format!("cannot mount a private tmpfs on {}: {e}", path.display()))?;
    }
    Ok(tmp)
}

/// Hides `path`: a folder under an empty read-only tmpfs, with the writable and shown
/// places below it bound again through their handles; anything else (a socket, a credential file) under
/// an empty read-only file of the fresh `/dev/shm`, which refuses `connect` and reads
/// empty (a mount of this namespace's own, so a user namespace lets its flags be set,
/// where `/dev/null`'s locked `noexec` would refuse the remount). A path not there (or
/// under the fresh `/tmp`, out of sight already) is left.
#[cfg(target_os = "linux")]
fn hide(
    path: &Path,
    handles: &[(PathBuf, rustix::fd::OwnedFd, bool)],
    shown: &[(PathBuf, rustix::fd::OwnedFd, bool)],
) -> Result<(), String> {
    let err = |what: &str, e: rustix::io::Errno| format!("cannot {what} {}: {e}", path.display());
    let read_only = MountFlags::BIND | MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if !meta.is_dir() {
        let empty = Path::new("/dev/shm/.speccoder-hidden");
        if !empty.exists() {
            std::fs::write(empty, b"")
                .map_err(|e| format!("cannot make {}: {e}", empty.display()))?;
        }
        mount_bind(empty, path).map_err(|e| err("hide", e))?;
        return mount_remount(path, read_only, "").map_err(|e| err("hide", e));
    }
    // The shown ones are bound from the mounts as the read-only pass left them.
    let below: Vec<_> = handles
        .iter()
        .chain(shown)
        .filter(|(p, _, _)| p != path && within(p, path))
        .collect();
    let flags = if below.is_empty() {
        MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV
    } else {
        MountFlags::NOSUID | MountFlags::NODEV
    };
    mount(
        "speccoder-hidden",
        path,
        "tmpfs",
        flags,
        Some(c"size=64k,mode=0555"),
    )
    .map_err(|e| err("hide", e))?;
    if below.is_empty() {
        return Ok(());
    }
    for (open, fd, is_dir) in below {
        if *is_dir {
            std::fs::create_dir_all(open)
        } else {
            open.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(open, b""))
        }
        .map_err(|e| format!("cannot make {} again: {e}", open.display()))?;
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        mount_bind(source.as_str(), open)
            .map_err(|e| format!("cannot bind {}: {e}", open.display()))?;
    }
    mount_remount(path, read_only, "").map_err(|e| err("hide", e))
}

/// Whether `path` is `base` or below it.
#[cfg(target_os = "linux")]
fn within(path: &Path, base: &Path) -> bool {
    path.starts_with(base)
}

/// The source name of the empty read-only tmpfs that covers a mount that cannot be made
/// read-only; the probe finds them by it in `/proc/self/mountinfo`.
pub const COVERED: &str = "speccoder-covered";

/// Makes every mount point read-only but the writable places, `/proc` and the private
/// temporary folders. A mount under a private temporary folder was covered by it (its
/// remount fails with EINVAL, or ENOENT when the fresh folder lacks the path) and is out of
/// reach already. A mount that refuses to be made read-only is covered by an empty
/// read-only tmpfs named [`COVERED`], unless a writable place is under it: then the
/// sandbox cannot be made as promised, and this fails with the reason.
#[cfg(target_os = "linux")]
fn read_only_everywhere(spec: &Spec, tmp: &[PathBuf], points: &[MountPoint]) -> Result<(), String> {
    let mut covered: Vec<&Path> = Vec::new();
    for point in points {
        let path = &point.path;
        let kept = (within(path, Path::new("/proc"))
            && !within(path, Path::new("/proc/sys"))
            && path != Path::new("/proc/sysrq-trigger"))
            || tmp.iter().any(|t| path == t)
            || spec.writable.iter().any(|w| within(path, w))
            || spec.tree_at.as_ref().is_some_and(|t| within(path, &t.at));
        let out_of_reach = tmp.iter().any(|t| path != t && within(path, t))
            || covered.iter().any(|c| within(path, c));
        if kept || out_of_reach {
            continue;
        }
        let errno = match mount_remount(
            path,
            MountFlags::BIND | MountFlags::RDONLY | point.flags,
            "",
        ) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => continue,
            Err(errno) => errno,
        };
        let open_below = spec
            .writable
            .iter()
            .chain(spec.tree_at.as_ref().map(|t| &t.at))
            .chain(tmp)
            .find(|w| within(w, path));
        if let Some(open) = open_below {
            return Err(format!(
                "cannot make {} read-only ({errno}), and it cannot be covered: {} is under it and must stay writable",
                path.display(),
                open.display()
            ));
        }
        mount(
            COVERED,
            path,
            "tmpfs",
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
            Some(c"size=4k,mode=0555"),
        )
        .map_err(|e| {
            format!(
                "cannot make {} read-only ({errno}), nor cover it: {e}",
                path.display()
            )
        })?;
        covered.push(path);
    }
    Ok(())
}

/// An `O_PATH` handle on each of `paths`, with whether it is a folder: taken before
/// anything covers them.
#[cfg(target_os = "linux")]
fn handles_of<'a>(
    paths: impl Iterator<Item = &'a PathBuf>,
) -> Result<Vec<(PathBuf, rustix::fd::OwnedFd, bool)>, String> {
    paths
        .map(|path| {
            let fd = rustix::fs::open(
                path,
                rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            Ok((path.clone(), fd, path.is_dir()))
        })
        .collect()
}

#[cfg(target_os = "linux")]
fn make_mounts(spec: &Spec) -> Result<(), String> {
    let err = |what: &str, path: &Path, e: rustix::io::Errno| {
        format!("cannot {what} {}: {e}", path.display())
    };
    // Handles on the writable places before anything covers them: a writable folder under
    // /tmp is bound again on top of the fresh /tmp through its handle.
    let shown = handles_of(spec.shown.iter().filter(|p| p.exists()))?;
    let handles = handles_of(spec.writable.iter())?;
    let mut tmp = private_tmp(spec.tmp_mib)?;
    for (path, fd, is_dir) in &handles {
        if tmp.iter().any(|t| within(path, t)) {
            if *is_dir {
                std::fs::create_dir_all(path)
            } else {
                path.parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(path, b""))
            }
            .map_err(|e| format!("cannot make {} again: {e}", path.display()))?;
        }
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        mount_bind(source.as_str(), path).map_err(|e| err("bind", path, e))?;
    }
    // The caches, each a private overlay like /tmp; one the kernel refuses stays as it is,
    // read-only below. After the writable places are bound again: a kept layer's folder is
    // one of them, and under the private /tmp only its bound copy is the disk's.
    let tmp_only = tmp.len();
    for (n, path) in spec.overlays.iter().enumerate() {
        if path.is_dir()
            && !tmp[..tmp_only].iter().any(|t| within(path, t))
            && cache_overlay(path, &format!("cache-{n}"), spec.cache_layers.as_ref())
        {
            tmp.push(path.clone());
        }
    }
    // The tree at its fixed path too, through the same handle. A fixed path in a private
    // tmpfs is made there first.
    if let Some(tree_at) = &spec.tree_at {
        if tmp.iter().any(|t| within(&tree_at.at, t)) {
            std::fs::create_dir_all(&tree_at.at)
                .map_err(|e| format!("cannot make {}: {e}", tree_at.at.display()))?;
        }
        let (_, fd, _) = handles
            .iter()
            .find(|(path, _, is_dir)| *is_dir && *path == tree_at.tree)
            .ok_or_else(|| format!("{} is not a writable folder", tree_at.tree.display()))?;
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        mount_bind(source.as_str(), &tree_at.at).map_err(|e| err("bind", &tree_at.at, e))?;
    }
    // /proc/sys and /proc/sysrq-trigger would take writes from root even without
    // capabilities.
    for path in ["/proc/sys", "/proc/sysrq-trigger"] {
        if Path::new(path).exists() {
            mount_bind(path, path).map_err(|e| err("bind", Path::new(path), e))?;
        }
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    read_only_everywhere(spec, &tmp, &mount_points(&mountinfo))?;
    for path in &spec.hidden {
        hide(path, &handles, &shown)?;
    }
    // Read-only where they are, and where the tree is seen at its fixed path.
    let seen = spec
        .read_only
        .iter()
        .filter_map(|p| spec.tree_at.as_ref().and_then(|t| t.seen(p)));
    for path in spec.read_only.clone().into_iter().chain(seen) {
        let path = &path;
        mount_bind(path, path).map_err(|e| err("bind", path, e))?;
        mount_remount(
            path,
            MountFlags::BIND | MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
            "",
        )
        .map_err(|e| err("make read-only", path, e))?;
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_give_paths_and_flags() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    28 27 0:25 / /mnt/a\\040b ro,nosuid,nodev,relatime - tmpfs x ro\n";
        assert_eq!(
            mount_points(text),
            vec![
                MountPoint {
                    path: "/".into(),
                    flags: MountFlags::RELATIME
                },
                MountPoint {
                    path: "/mnt/a b".into(),
                    flags: MountFlags::NOSUID | MountFlags::NODEV | MountFlags::RELATIME
                },
            ]
        );
    }
}
