//! What of yours the agent's and the checks' sandbox hides: the sockets that would let
//! them act as you or as root (an ssh-agent, gpg-agent, D-Bus, docker), which a read-only
//! mount does not stop (`connect` is no write), and the home folder's credential files.
//! `[attempt] reveal` lets chosen ones through; a writable place is never hidden.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Runtime folders and sockets of the machine: each user's runtime folder (systemd's
/// ssh-agent, gpg-agent, GNOME Keyring, the D-Bus session bus, a rootless docker or
/// podman), the system bus, and the container engines' sockets.
const SOCKETS: &[&str] = &[
    "/run/user",
    "/run/dbus",
    "/var/run/dbus",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd",
    "/run/podman",
    "/run/snapd.socket",
    "/run/systemd/private",
];

/// Credential files and folders in the home folder.
const HOME_CREDENTIALS: &[&str] = &[
    ".aws",
    ".azure",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/containers/auth.json",
    ".config/gcloud",
    ".config/gh",
    ".config/git/credentials",
    ".config/hub",
    ".docker",
    ".git-credentials",
    ".gnupg",
    ".kube",
    ".local/share/keyrings",
    ".my.cnf",
    ".netrc",
    ".npmrc",
    ".password-store",
    ".pgpass",
    ".pypirc",
    ".ssh",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
];

/// The agents' own state, with their sign-in: the agent needs it, the checks never.
const AGENT_STATE: &[&str] = &[".claude", ".claude.json", ".codex", ".config/claude"];

/// Who the sandbox is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum For {
    Agent,
    Checks,
}

/// The places to hide from `who`, given the home folder and the environment `var`: each
/// one there, resolved, but those `reveal` or `open` (the writable places) hold or name.
pub(crate) fn places(
    who: For,
    home: Option<&Path>,
    var: &dyn Fn(&str) -> Option<OsString>,
    reveal: &[PathBuf],
    open: &[PathBuf],
) -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = SOCKETS.iter().map(PathBuf::from).collect();
    if let Some(home) = home {
        places.extend(HOME_CREDENTIALS.iter().map(|p| home.join(p)));
        if who == For::Checks {
            places.extend(AGENT_STATE.iter().map(|p| home.join(p)));
        }
    }
    if who == For::Checks {
        places.extend(
            ["CLAUDE_CONFIG_DIR", "CODEX_HOME"]
                .iter()
                .filter_map(|v| var(v))
                .map(PathBuf::from),
        );
    }
    for name in ["XDG_RUNTIME_DIR", "GNUPGHOME"] {
        places.extend(var(name).map(PathBuf::from));
    }
    if let Some(socket) = var("SSH_AUTH_SOCK").map(PathBuf::from) {
        // Its folder too (an agent's `ssh-XXXX/`), unless that is a folder of everyone's.
        if let Some(folder) = socket.parent()
            && folder.components().count() > 2
            && Some(folder) != home
        {
            places.push(folder.to_path_buf());
        }
        places.push(socket);
    }
    // `unix:///run/x.sock`, `unix:path=/run/user/1000/bus,guid=…`.
    let docker =
        var("DOCKER_HOST").and_then(|v| v.to_str()?.strip_prefix("unix://").map(PathBuf::from));
    let bus = var("DBUS_SESSION_BUS_ADDRESS").and_then(|v| {
        let v = v.to_str()?.to_owned();
        let path = v.strip_prefix("unix:path=")?;
        Some(PathBuf::from(path.split(',').next()?))
    });
    places.extend(docker);
    places.extend(bus);
    let mut resolved: Vec<PathBuf> = places
        .into_iter()
        .filter(|p| p.is_absolute())
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p != Path::new("/"))
        .filter(|p| {
            !reveal.iter().chain(open).any(|r| p.starts_with(r)) && !reveal.iter().any(|r| r == p)
        })
        .filter(|p| home.is_none_or(|h| p != h))
        .collect();
    resolved.sort();
    resolved.dedup();
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_credentials_and_what_is_let_through() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("resolved");
        let home = root.join("home");
        for folder in [
            ".ssh",
            ".config/gh",
            ".claude",
            "run/1000",
            "agent-x",
            "work",
        ] {
            std::fs::create_dir_all(home.join(folder)).expect("mkdir");
        }
        std::fs::write(home.join(".netrc"), "machine x").expect("netrc");
        std::fs::write(home.join("agent-x/agent.1"), "").expect("socket stand-in");
        let vars = |name: &str| -> Option<OsString> {
            match name {
                "SSH_AUTH_SOCK" => Some(home.join("agent-x/agent.1").into()),
                "XDG_RUNTIME_DIR" => Some(home.join("run/1000").into()),
                "DOCKER_HOST" => Some("tcp://127.0.0.1:2375".into()),
                _ => None,
            }
        };
        let ours = |who| {
            places(
                who,
                Some(&home),
                &vars,
                &[home.join(".config/gh")],
                &[home.join("work")],
            )
            .into_iter()
            .filter(|p| p.starts_with(&home))
            .map(|p| {
                p.strip_prefix(&home)
                    .expect("in home")
                    .display()
                    .to_string()
            })
            .collect::<Vec<_>>()
        };
        assert_eq!(
            ours(For::Agent),
            [".netrc", ".ssh", "agent-x", "agent-x/agent.1", "run/1000"]
        );
        assert_eq!(
            ours(For::Checks),
            [
                ".claude",
                ".netrc",
                ".ssh",
                "agent-x",
                "agent-x/agent.1",
                "run/1000"
            ]
        );
        // A writable place is never hidden (one below a hidden folder is bound again inside it).
        let open = places(For::Agent, Some(&home), &vars, &[], &[home.join(".ssh")]);
        assert!(!open.contains(&home.join(".ssh")), "{open:?}");
    }
}
