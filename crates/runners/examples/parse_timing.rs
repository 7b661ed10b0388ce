//! Times the static makefile parser on a file: `cargo run --release -p speccoder_runners
//! --example parse_timing -- Makefile`.

fn main() {
    let path = std::env::args().nth(1).expect("a makefile path");
    let text = std::fs::read_to_string(&path).expect("readable");
    let start = std::time::Instant::now();
    let targets = speccoder_runners::parse::makefile(&text);
    let parsed = start.elapsed();
    println!(
        "{} targets in {:.1} ms",
        targets.len(),
        parsed.as_secs_f64() * 1e3
    );
    for (stage, took) in speccoder_runners::parse::makefile_stage_timings(&text) {
        println!("  {stage}: {:.1} ms", took.as_secs_f64() * 1e3);
    }
}
