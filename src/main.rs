//! The `fathom` binary.
//!
//! - `fathom [-E key=value]...` starts a node: HTTP on 127.0.0.1:9200 (next free port up to
//!   9299, or `http.port`), data in `./data` (`path.data`), settings from `config/fathom.yml`
//!   (`FATHOM_PATH_CONF` to point elsewhere) and `-E` overrides. SIGINT/SIGTERM stop it cleanly.
//! - `fathom inspect PATH...` dumps and checks segment files, commit points and translogs.
//! - `fathom setup-security` writes the demo security configuration (CA, node and admin
//!   certificates, `plugins.security.*` settings) into the config directory.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// mimalloc, counting each thread's allocated bytes for the tasks' `resource_stats`.
#[cfg(feature = "server")]
#[global_allocator]
static ALLOCATOR: fathom::tasks::resource::CountingAlloc<mimalloc::MiMalloc> =
    fathom::tasks::resource::CountingAlloc(mimalloc::MiMalloc);

fn usage() -> ExitCode {
    eprintln!("usage: fathom [-E key=value]...\n       fathom inspect PATH...\n       fathom setup-security\n       fathom securityadmin -cd DIR -cacert CA -cert CERT -key KEY [-h HOST] [-p PORT]");
    ExitCode::from(2)
}

fn inspect(paths: &[String]) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for p in paths {
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("inspect") {
        return if args.len() > 1 { inspect(&args[1..]) } else { usage() };
    }
    if args.first().map(String::as_str) == Some("securityadmin") {
        return security_admin(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("setup-security") {
        return if args.len() == 1 { setup_security() } else { usage() };
    }
    let mut overrides = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-E" {
            match it.next() {
                Some(kv) => overrides.push(kv.clone()),
                None => return usage(),
            }
        } else if let Some(kv) = a.strip_prefix("-E") {
            overrides.push(kv.to_string());
        } else if a == "-h" || a == "--help" {
            return usage();
        } else {
            eprintln!("unknown argument [{a}]");
            return usage();
        }
    }
    serve(overrides)
}

#[cfg(feature = "server")]
fn serve(overrides: Vec<String>) -> ExitCode {
    use fathom::node::NodeSettings;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    // The filter can be swapped while running: the `logger.*` cluster settings set levels.
    let base = std::env::var("FATHOM_LOG").unwrap_or_else(|_| "info".to_string());
    let filter =
        tracing_subscriber::EnvFilter::try_new(&base).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let (filter, handle) = tracing_subscriber::reload::Layer::new(filter);
    tracing_subscriber::registry()
        .with(filter)
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .init();
    fathom::cluster::logging::set_hook(
        &base,
        Box::new(move |directives| {
            if let Ok(f) = tracing_subscriber::EnvFilter::try_new(directives) {
                let _ = handle.reload(f);
            }
        }),
    );
    let conf = std::env::var_os("FATHOM_PATH_CONF").map(PathBuf::from);
    let settings = match NodeSettings::load(conf.as_deref(), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fathom: {e}");
            return ExitCode::from(78);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("fathom[http]")
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("fathom: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(async move {
        let running = match fathom::http::start(settings).await {
            Ok(r) => r,
            Err(e) => {
                eprintln!("fathom: {e}");
                return ExitCode::from(78);
            }
        };
        println!("fathom listening on {}://{}", if running.https { "https" } else { "http" }, running.addr);
        wait_for_signal().await;
        tracing::info!("stopping");
        running.stop().await;
        tracing::info!("stopped");
        ExitCode::SUCCESS
    })
}

/// `fathom setup-security`: the demo security configuration into `FATHOM_PATH_CONF` (or `config`).
#[cfg(feature = "server")]
fn setup_security() -> ExitCode {
    use fathom::security::demo;
    let dir = std::env::var_os("FATHOM_PATH_CONF").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("config"));
    let password = std::env::var(demo::ADMIN_PASSWORD_ENV).ok();
    match demo::setup(&dir, password.as_deref()) {
        Ok(demo::Outcome::Installed) => {
            println!("Security demo configuration written to [{}]:", dir.display());
            println!("  root-ca.pem, esnode.pem, esnode-key.pem, kirk.pem, kirk-key.pem and the plugins.security.* settings in fathom.yml");
            println!("  opensearch-security/*.yml (the demo users, roles and role mappings)");
            println!("Admin password set successfully.");
            println!("### Success");
            println!("### Start Fathom; it serves HTTPS with the demo certificates (curl --cacert {}/root-ca.pem https://localhost:9200)", dir.display());
            ExitCode::SUCCESS
        }
        Ok(demo::Outcome::AlreadyConfigured) => {
            println!("{} seems to be already configured for Security. Quit.", dir.join("fathom.yml").display());
            ExitCode::SUCCESS
        }
        Err(demo::SetupError::Password(msg)) => {
            // As the plugin's installer: the message on standard output, exit status -1.
            println!("{msg}");
            ExitCode::from(255)
        }
        Err(demo::SetupError::Other(e)) => {
            eprintln!("fathom setup-security: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `fathom securityadmin`: the plugin's `securityadmin.sh` (see `security/admin_tool.rs`).
#[cfg(feature = "server")]
fn security_admin(args: &[String]) -> ExitCode {
    let a = match fathom::security::admin_tool::parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            println!("{e}");
            println!("usage: fathom securityadmin (-cd DIR | -f FILE -t TYPE | -backup DIR) -cacert CA -cert CERT -key KEY [-h HOST] [-p PORT] [-i INDEX]");
            return ExitCode::from(255);
        }
    };
    ExitCode::from(fathom::security::admin_tool::run(&a, &mut std::io::stdout()))
}

#[cfg(not(feature = "server"))]
fn security_admin(_args: &[String]) -> ExitCode {
    eprintln!("fathom was built without the `server` feature");
    ExitCode::FAILURE
}

#[cfg(not(feature = "server"))]
fn setup_security() -> ExitCode {
    eprintln!("fathom was built without the `server` feature");
    ExitCode::FAILURE
}

#[cfg(feature = "server")]
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
        (Ok(mut i), Ok(mut t)) => {
            tokio::select! {
                _ = i.recv() => {}
                _ = t.recv() => {}
            }
        }
        _ => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(not(feature = "server"))]
fn serve(_overrides: Vec<String>) -> ExitCode {
    let _ = PathBuf::new();
    eprintln!("fathom was built without the `server` feature");
    ExitCode::FAILURE
}
