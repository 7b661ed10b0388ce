//! Measures how long `LocalSpawner` takes to run `sh -c true` from start to return, beside
//! the same command through `std::process::Command::output` (no deadline, no process group,
//! no cleanup) as the baseline: `cargo run --release --example spawn_latency -- [RUNS]
//! [BUSY_THREADS]`.

use std::time::{Duration, Instant};

use speccoder_foundation::process::{Cgroups, LocalSpawner, RunRequest, Spawner};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(500);
    // Threads that allocate while runs start, as detection's threads and an MCP server's do.
    let busy: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    for _ in 0..busy {
        std::thread::spawn(|| {
            loop {
                std::hint::black_box(vec![1u8; 256 * 1024]);
                std::thread::sleep(Duration::from_micros(200));
            }
        });
    }
    let runner = LocalSpawner::default();
    let request = RunRequest::new("true", std::env::temp_dir(), Duration::from_secs(10));
    let ours = measure(runs, || {
        let out = runner.run(&request).expect("sh starts");
        assert!(out.success());
    });
    let mut without_cgroup = LocalSpawner::default();
    without_cgroup.cgroups = Cgroups::Never;
    let no_cgroup = measure(runs, || {
        let out = without_cgroup.run(&request).expect("sh starts");
        assert!(out.success());
    });
    let baseline = measure(runs, || {
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", "true"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("sh starts");
        assert!(out.status.success());
    });
    report(
        &format!(
            "LocalSpawner (cgroup per run: {})",
            speccoder_foundation::process::cgroups_available()
        ),
        &ours,
    );
    report("LocalSpawner without cgroups", &no_cgroup);
    report("Command::output", &baseline);
    println!(
        "median ratio: {:.2}",
        ours[runs / 2].as_secs_f64() / baseline[runs / 2].as_secs_f64()
    );
}

fn measure(runs: usize, mut once: impl FnMut()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            once();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn report(name: &str, times: &[Duration]) {
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<16} runs {}: median {:.2} ms, p90 {:.2} ms, p99 {:.2} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
    );
}
