//! The `fathom` binary. For now: `fathom inspect PATH...`.

use std::path::Path;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: fathom inspect PATH...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("inspect") if args.len() > 1 => {
            let mut code = ExitCode::SUCCESS;
            for p in &args[1..] {
                match fathom::inspect::inspect(Path::new(p)) {
                    Ok(report) => print!("{report}"),
                    Err(e) => {
                        eprintln!("{p}: {e}");
                        code = ExitCode::FAILURE;
                    }
                }
            }
            code
        }
        _ => usage(),
    }
}
