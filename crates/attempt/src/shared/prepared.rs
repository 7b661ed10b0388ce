//! The prepared attempt: everything fixed before the first attempt.

use std::path::{Path, PathBuf};

use super::bundle::AttemptBundle;
use super::declared::Declared;
use super::environment::Allowed;
use super::hidden::{self, For};
use super::known_failures::KnownFailures;
use super::products::SetupProducts;
use super::pycache::SharedPycache;
use super::rules::Rules;
use super::warning::FileText;
use crate::store::Store;
use crate::store::journal::{Journal, Running};
use crate::store::repo::Repo;
use speccoder_agent::{Allowances, RecipeServer};
use speccoder_foundation::process::LocalSpawner;
use speccoder_foundation::sandbox::{CacheLayers, Namespaces, Sandbox, Spec, TreeAt};
use speccoder_recipe::Recipe;

/// How the agent and the checks are kept apart from the rest of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// In the sandbox's namespaces.
    Namespaces(Namespaces),
    /// Nowhere to make them: the agent runs as the user, with a PID namespace nowhere.
    None,
}

impl Isolation {
    /// Its name in the story.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Namespaces(_) => "namespaces",
            Self::None => "none",
        }
    }
}

/// The withheld tests.
#[derive(Debug)]
pub(crate) struct Withheld {
    /// The folder, as given (canonical).
    pub(crate) dir: PathBuf,
    /// Its files, relative to it.
    pub(crate) files: Vec<String>,
    /// The same files as repository paths (under the project's prefix).
    pub(crate) paths: Vec<String>,
    /// Their texts, for the gaming monitor.
    pub(crate) texts: Vec<FileText>,
}

/// Everything fixed before the first attempt.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) bundle: AttemptBundle,
    pub(crate) repo: Repo,
    /// The project root's path inside the repository (`""` at the top).
    pub(crate) prefix: String,
    pub(crate) withheld: Option<Withheld>,
    pub(crate) isolation: Isolation,
    pub(crate) branch: String,
    pub(crate) notes: Vec<String>,
    /// The attempt's private folder (0700): the store, the agent's tree, the check trees.
    pub(crate) folder: tempfile::TempDir,
    /// Indexes and launch files.
    pub(crate) scratch: PathBuf,
    pub(crate) store: Store,
    /// The commit every comparison is against: `HEAD`, with the acceptance tests.
    pub(crate) base: String,
    /// The agent's tree (the repository's top) and the project in it.
    pub(crate) tree: PathBuf,
    pub(crate) project_dir: PathBuf,
    /// The recipe as detected in your checkout, before the agent ran; the checks resolve
    /// here and run at the same place in the check tree.
    pub(crate) recipe: Recipe,
    pub(crate) ops: Vec<String>,
    pub(crate) allowed: Allowances,
    pub(crate) recipe_server: Option<RecipeServer>,
    pub(crate) rules: Rules,
    pub(crate) journal: Journal,
    /// The mark that this run is in progress, removed when it ends.
    pub(crate) running: Running,
    /// What the agent may write besides its tree.
    pub(crate) writable: Vec<PathBuf>,
    /// The products of `[attempt] setup`, once it ran.
    pub(crate) products: Option<SetupProducts>,
    /// The products the tree's `.gitignore` leaves out, which the agent's tree gets too.
    pub(crate) agent_products: Vec<String>,
    /// The acceptance tests, as paths from the project root.
    pub(crate) acceptance_files: Vec<String>,
    /// What the withheld and acceptance files declare: the ids of their tests where the
    /// runner's ids do not name the file.
    pub(crate) declared: Declared,
    /// `[attempt] known_failures`: the tests that may fail.
    pub(crate) known: KnownFailures,
    /// The environment the checks get: the allow-list and `[attempt] env`.
    pub(crate) check_env: Vec<(String, String)>,
    /// The environment the agent gets: the allow-list, its executor's own and
    /// `[attempt] agent_env`.
    pub(crate) agent_env: Vec<(String, String)>,
    /// `[attempt] tmp_size_mib`: the bound of each sandbox's private `/tmp`.
    pub(crate) tmp_mib: u64,
    /// The Python bytecode the checks share, in the sandbox only (`pycache.rs`).
    pub(crate) pycache: Option<SharedPycache>,
    /// `[attempt] reveal`: what the sandbox shows though it would hide it.
    pub(crate) reveal: Vec<PathBuf>,
    /// `[attempt] network`: the checks keep the machine's network.
    pub(crate) checks_network: bool,
    /// The runners' caches, each seen through a private overlay by the agent, the setup
    /// and the checks; each made when missing, as the tool would at its first run.
    pub(crate) caches: Vec<PathBuf>,
}

/// The home folder.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

impl Prepared {
    /// The withheld and acceptance tests, as paths from the project root (the way the
    /// runners name them): each of their tests must run and pass.
    pub(crate) fn required_tests(&self) -> Vec<String> {
        let mut files = self.acceptance_files.clone();
        if let Some(withheld) = &self.withheld {
            files.extend(withheld.files.iter().cloned());
        }
        files
    }

    /// The runner of the agent: the sandbox with its tree, its private folder and
    /// `[attempt] writable` open, and the withheld folder hidden.
    pub(crate) fn agent_spawner(
        &self,
        agent_folder: &Path,
    ) -> Box<dyn speccoder_foundation::process::Spawner> {
        let inner: Box<dyn speccoder_foundation::process::Spawner> = match self.isolation {
            Isolation::None => Box::new(LocalSpawner::default()),
            Isolation::Namespaces(namespaces) => {
                let mut writable = vec![self.tree.clone(), agent_folder.to_path_buf()];
                writable.extend(self.writable_beside_caches());
                // Besides the withheld tests: the journal, the baselines and the kept
                // outputs of earlier checks, which hold what the withheld tests printed.
                let mut hidden: Vec<PathBuf> =
                    self.withheld.iter().map(|w| w.dir.clone()).collect();
                hidden.push(self.repo.common_dir.join("speccoder"));
                hidden.extend(kept_outputs());
                hidden.extend(hidden::places(
                    For::Agent,
                    home().as_deref(),
                    &|name| std::env::var_os(name),
                    &self.reveal,
                    &writable,
                ));
                Box::new(Sandbox {
                    namespaces,
                    spec: Spec {
                        writable,
                        hidden,
                        read_only: Vec::new(),
                        tmp_mib: Some(self.tmp_mib),
                        // The agent reaches its model.
                        private_network: false,
                        overlays: self.caches.clone(),
                        cache_layers: self.setup_cache_layers(),
                        shown: self.reveal.clone(),
                        // The setup's products copied into the agent's tree find it.
                        tree_at: self.products.as_ref().map(|p| TreeAt {
                            tree: self.tree.clone(),
                            at: p.at.clone(),
                            run_there: false,
                        }),
                    },
                    scratch: self.scratch.clone(),
                    inner: LocalSpawner::default(),
                })
            }
        };
        Box::new(Allowed {
            inner,
            env: self.agent_env.clone(),
        })
    }

    /// What the setup's sandbox hides: the withheld tests, and your sockets and credential
    /// files as the checks' sandbox hides them (`[attempt] reveal` lets them through). The
    /// setup runs commands a repository chose, with the machine's network.
    pub(crate) fn hidden_from_setup(&self, writable: &[PathBuf]) -> Vec<PathBuf> {
        let mut hidden: Vec<PathBuf> = self.withheld.iter().map(|w| w.dir.clone()).collect();
        hidden.extend(kept_outputs());
        hidden.extend(hidden::places(
            For::Checks,
            home().as_deref(),
            &|name| std::env::var_os(name),
            &self.reveal,
            writable,
        ));
        hidden
    }

    /// The environment of the setup: the checks' (the allow-list and `[attempt] env` of
    /// your own file), never the whole of yours.
    pub(crate) fn setup_spawner(
        &self,
        inner: Box<dyn speccoder_foundation::process::Spawner>,
    ) -> Box<dyn speccoder_foundation::process::Spawner> {
        Box::new(Allowed {
            inner,
            env: self.check_env.clone(),
        })
    }

    /// `[attempt] writable` but the runners' caches, which are private overlays instead:
    /// what the agent or the setup writes there stays in its namespace.
    pub(crate) fn writable_beside_caches(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.writable
            .iter()
            .filter(|w| !self.caches.iter().any(|c| w.starts_with(c)))
            .cloned()
    }

    /// The shared bytecode folder, when there is one and the fixed path the setup's trees
    /// are seen at could be kept out of it (`pycache.rs`).
    pub(crate) fn shared_pycache(&self) -> Option<&Path> {
        let cache = self.pycache.as_ref()?;
        if let Some(products) = &self.products {
            cache.block_for_good(&products.at).ok()?;
        }
        Some(cache.dir())
    }

    /// The runner of the checks in `check_tree`: nothing writable but that tree, a private
    /// `/tmp` and `also_writable` (the shared bytecode, for the base's checks), and
    /// `read_only` files read-only in it.
    ///
    /// What the setup wrote into the caches is read from `caches`: the layers of the setup
    /// whose products the tree holds (the candidate's own, where its setup ran again).
    pub(crate) fn check_spawner(
        &self,
        check_tree: &Path,
        (read_only, caches): (Vec<PathBuf>, Option<&Path>),
        also_writable: Option<&Path>,
    ) -> Box<dyn speccoder_foundation::process::Spawner> {
        let writable: Vec<PathBuf> = [Some(check_tree), also_writable]
            .into_iter()
            .flatten()
            .map(Path::to_path_buf)
            .collect();
        // Where the setup ran, when there was one.
        let tree_at = self.products.as_ref().map(|p| TreeAt {
            tree: check_tree.to_path_buf(),
            at: p.at.clone(),
            run_there: true,
        });
        let layers = caches.map(|dir| CacheLayers {
            dir: dir.to_path_buf(),
            keep: false,
        });
        self.checks_sandbox(writable, (read_only, layers), tree_at)
    }

    /// The checks' sandbox and environment around a tool speccoder runs on the candidate's
    /// files itself (`go mod vendor`): nothing writable but `writable`, no setup's
    /// products, and the network as the checks have it.
    pub(crate) fn sealed_spawner(
        &self,
        writable: Vec<PathBuf>,
    ) -> Box<dyn speccoder_foundation::process::Spawner> {
        self.checks_sandbox(writable, (Vec::new(), self.setup_cache_layers()), None)
    }

    /// What the base's setup wrote into the caches, read below each sandbox's own layer.
    fn setup_cache_layers(&self) -> Option<CacheLayers> {
        self.products.as_ref().map(|p| CacheLayers {
            dir: p.caches.clone(),
            keep: false,
        })
    }

    fn checks_sandbox(
        &self,
        writable: Vec<PathBuf>,
        (read_only, cache_layers): (Vec<PathBuf>, Option<CacheLayers>),
        tree_at: Option<TreeAt>,
    ) -> Box<dyn speccoder_foundation::process::Spawner> {
        let inner: Box<dyn speccoder_foundation::process::Spawner> = match self.isolation {
            Isolation::None => Box::new(LocalSpawner::default()),
            Isolation::Namespaces(namespaces) => {
                let mut hidden: Vec<PathBuf> =
                    self.withheld.iter().map(|w| w.dir.clone()).collect();
                // The outputs kept of earlier runs, the verdict's pass among them: one
                // count of them told the twin pass from the verdict's.
                hidden.extend(kept_outputs());
                hidden.extend(hidden::places(
                    For::Checks,
                    home().as_deref(),
                    &|name| std::env::var_os(name),
                    &self.reveal,
                    &writable,
                ));
                Box::new(Sandbox {
                    namespaces,
                    spec: Spec {
                        writable,
                        hidden,
                        read_only,
                        tmp_mib: Some(self.tmp_mib),
                        private_network: !self.checks_network,
                        overlays: self.caches.clone(),
                        cache_layers,
                        shown: self.reveal.clone(),
                        tree_at,
                    },
                    scratch: self.scratch.clone(),
                    inner: LocalSpawner::default(),
                })
            }
        };
        Box::new(Allowed {
            inner,
            env: self.check_env.clone(),
        })
    }
}

/// Where the full outputs of runs are kept: the state folder's, and the one in the
/// temporary folder where the state folder cannot be used.
fn kept_outputs() -> [PathBuf; 2] {
    [
        speccoder_recipe::default_output_dir().path(),
        speccoder_recipe::temp_output_dir().path(),
    ]
}
