//! Times `config::normalize_json` natively on a NormalizeInput JSON file
//! (written by bench/config-normalize.mjs). Prints one JSON line of timings.
//! Run: cargo run --release -p lazy-mcp-core --example normalize_bench -- FILE [RUNS]

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: normalize_bench FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let input = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(1);
        }
    };
    let mut servers = 0;
    for _ in 0..20 {
        let out = lazy_mcp_core::config::normalize_json(&input);
        servers = out.matches("\"fingerprint\"").count();
    }
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = lazy_mcp_core::config::normalize_json(&input);
            std::hint::black_box(out);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{{\"servers\":{servers},\"runs\":{runs},\"medianMs\":{:.4},\"p95Ms\":{:.4},\"minMs\":{:.4}}}",
        at(0.5),
        at(0.95),
        at(0.0)
    );
}
