//! The loopback server: the page, the bundle and the scene at fixed routes, nothing else.
//!
//! Routes (every other path is 404; no request ever reads a file):
//!
//! | method | path | answer |
//! | --- | --- | --- |
//! | GET, HEAD | `/`, `/index.html` | the page |
//! | GET, HEAD | `/viewer.js` | the bundle |
//! | GET, HEAD | `/scene.json` | the scene (live: the static part, no frames) |
//! | GET | `/frame` | live only: the next [`LiveFrame`] |
//! | GET | `/state` | live only: the current [`LiveFrame`], without advancing |
//! | POST | `/control` | live only: a [`Control`] message as JSON |
//!
//! Requests are read one per connection (`Connection: close`), each within 5 s, heads up
//! to 16 KiB, bodies up to 64 KiB; at most 32 connections are served at once (503 above).
//! A `Host` header that does not name a loopback address or `localhost` is refused (403),
//! so a page of another site cannot reach the server through DNS rebinding.

use std::io;
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::html::{served_page, BUNDLE};
use crate::http::{read_request, ReadError, Request, Response};
use crate::live::{Control, LiveFrame, LiveSource};
use crate::scene::ViewerScene;

/// Most connections handled at once.
const MAX_CONNECTIONS: usize = 32;

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The address to listen on; must be a loopback address. Default `127.0.0.1:0` (a free
    /// port chosen by the system).
    pub addr: SocketAddr,
    /// Open the page in the system's browser (`xdg-open`, `open` or `start`).
    pub open_browser: bool,
    /// Print nothing (by default the page's address is printed on standard output).
    pub quiet: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            open_browser: false,
            quiet: false,
        }
    }
}

/// A running server. [`ServeHandle::stop`] (or dropping the handle) stops it; Ctrl-C ends
/// the process, and with it the server (the library installs no signal handler). It is
/// `Sync`: one thread may [`ServeHandle::wait`] while another stops it.
#[derive(Debug)]
pub struct ServeHandle {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl ServeHandle {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL, `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Whether [`Self::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Stops accepting connections; returns once the accept loop has ended (or at once
    /// while another thread is in [`Self::wait`], which then returns). Answers being
    /// written finish on their own threads. Calling it again does nothing.
    pub fn stop(&self) {
        if !self.stopping.swap(true, Ordering::SeqCst) {
            // Wake the blocking accept.
            let _ = TcpStream::connect(self.addr);
        }
        self.join();
    }

    /// Blocks until the server stops: until [`Self::stop`] from another thread, or for
    /// good (a command serving a page waits here until Ctrl-C ends the process).
    pub fn wait(&self) {
        self.join();
    }

    fn join(&self) {
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

impl Drop for ServeHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the routes serve.
struct Site {
    page: String,
    scene_json: String,
    live: Option<Mutex<Box<dyn LiveSource>>>,
}

/// Serves `scene` (validated first) at `options.addr` until stopped: the page at `/`.
pub fn serve(scene: &ViewerScene, options: ServeOptions) -> io::Result<ServeHandle> {
    scene
        .validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let site = Site {
        page: served_page(&scene.title, false),
        scene_json: scene.to_json(),
        live: None,
    };
    start(site, options)
}

/// Serves a live view of `source`: the page polls `/frame` for the next frame and sends
/// play, pause, step, reset, grab and release messages to `/control`.
pub fn serve_live(
    mut source: impl LiveSource + 'static,
    options: ServeOptions,
) -> io::Result<ServeHandle> {
    let mut scene = source.scene();
    scene.frames.clear();
    scene.plots.clear();
    let site = Site {
        page: served_page(&scene.title, true),
        scene_json: scene.to_json(),
        live: Some(Mutex::new(Box::new(source))),
    };
    start(site, options)
}

fn start(site: Site, options: ServeOptions) -> io::Result<ServeHandle> {
    if !options.addr.ip().is_loopback() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the viewer serves on loopback addresses only, not {}",
                options.addr
            ),
        ));
    }
    let listener = TcpListener::bind(options.addr)?;
    let addr = listener.local_addr()?;
    let stopping = Arc::new(AtomicBool::new(false));
    let site = Arc::new(site);
    let flag = Arc::clone(&stopping);
    let thread = std::thread::Builder::new()
        .name("stiction-viewer".into())
        .spawn(move || accept_loop(listener, site, flag))?;
    let handle = ServeHandle {
        addr,
        stopping,
        thread: Mutex::new(Some(thread)),
    };
    if !options.quiet {
        use std::io::Write;
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "stiction viewer: {} (Ctrl-C to stop)", handle.url());
        let _ = out.flush();
    }
    if options.open_browser {
        open_browser(&handle.url(), options.quiet);
    }
    Ok(handle)
}

fn accept_loop(listener: TcpListener, site: Arc<Site>, stopping: Arc<AtomicBool>) {
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(mut stream) = stream else {
            // A connection that failed before it was accepted, or no descriptor left:
            // keep serving, without spinning.
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            let _ = Response::error(503).write(&mut stream, false);
            continue;
        }
        let site = Arc::clone(&site);
        let active_here = Arc::clone(&active);
        let spawned = std::thread::Builder::new()
            .name("stiction-viewer-conn".into())
            .spawn(move || {
                handle_connection(&mut stream, &site);
                active_here.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn handle_connection(stream: &mut TcpStream, site: &Site) {
    let _ = stream.set_nodelay(true);
    let (response, head_only) = match read_request(stream) {
        Ok(request) => {
            let head_only = request.method == "HEAD";
            (route(&request, site), head_only)
        }
        Err(ReadError::Status(status)) => (Response::error(status), false),
        Err(ReadError::Gone) => return,
    };
    let _ = response.write(stream, head_only);
    let _ = stream.shutdown(Shutdown::Write);
    // Let the client read the answer before the socket closes: drain what it still sends
    // (a request cut short), for at most 1 s and 1 MiB.
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(200)));
    let start = std::time::Instant::now();
    let mut drained = 0usize;
    let mut sink = [0u8; 4096];
    while start.elapsed() < std::time::Duration::from_secs(1) && drained < 1 << 20 {
        match io::Read::read(stream, &mut sink) {
            Ok(n) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// Whether a `Host` header names this machine's loopback (or `localhost`).
fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn route(request: &Request, site: &Site) -> Response {
    if let Some(host) = &request.host {
        if !loopback_host(host) {
            return Response::error(403);
        }
    }
    let get = matches!(request.method.as_str(), "GET" | "HEAD");
    let not_allowed = |allow| {
        let mut r = Response::error(405);
        r.allow = Some(allow);
        r
    };
    match request.path.as_str() {
        "/" | "/index.html" if get => {
            Response::new(200, "text/html; charset=utf-8", site.page.clone())
        }
        "/viewer.js" if get => Response::new(200, "text/javascript; charset=utf-8", BUNDLE),
        "/scene.json" if get => Response::new(200, "application/json", site.scene_json.clone()),
        "/favicon.ico" if get => Response::new(204, "text/plain", ""),
        "/" | "/index.html" | "/viewer.js" | "/scene.json" | "/favicon.ico" => {
            not_allowed("GET, HEAD")
        }
        "/frame" if site.live.is_some() => live_frame(request, site, |s| s.next_frame()),
        "/state" if site.live.is_some() => live_frame(request, site, |s| s.current_frame()),
        "/control" if site.live.is_some() => {
            if request.method != "POST" {
                return not_allowed("POST");
            }
            let Some(live) = &site.live else {
                return Response::error(404);
            };
            let control: Control = match serde_json::from_slice(&request.body) {
                Ok(c) => c,
                Err(e) => {
                    let body = serde_json::json!({ "ok": false, "error": e.to_string() });
                    return Response::new(400, "application/json", body.to_string());
                }
            };
            let result = match live.lock() {
                Ok(mut source) => source.control(control),
                Err(_) => return Response::error(500),
            };
            match result {
                Ok(()) => Response::new(200, "application/json", "{\"ok\":true}"),
                Err(e) => {
                    let body = serde_json::json!({ "ok": false, "error": e });
                    Response::new(400, "application/json", body.to_string())
                }
            }
        }
        _ => Response::error(404),
    }
}

/// Answers a live route that returns a frame (`GET` only).
fn live_frame(
    request: &Request,
    site: &Site,
    frame: impl FnOnce(&mut dyn LiveSource) -> LiveFrame,
) -> Response {
    if request.method != "GET" {
        let mut r = Response::error(405);
        r.allow = Some("GET");
        return r;
    }
    let Some(live) = &site.live else {
        return Response::error(404);
    };
    let frame = match live.lock() {
        Ok(mut source) => frame(source.as_mut()),
        Err(_) => return Response::error(500),
    };
    match serde_json::to_string(&frame) {
        Ok(json) => Response::new(200, "application/json", json),
        Err(_) => Response::error(500),
    }
}

fn open_browser(url: &str, quiet: bool) {
    let mut command = if cfg!(target_os = "macos") {
        let mut c = std::process::Command::new("open");
        c.arg(url);
        c
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", "", url]);
        c
    } else {
        let mut c = std::process::Command::new("xdg-open");
        c.arg(url);
        c
    };
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if command.spawn().is_err() && !quiet {
        eprintln!("stiction viewer: could not open a browser; open {url} yourself");
    }
}

#[cfg(test)]
mod tests {
    use super::loopback_host;

    #[test]
    fn only_loopback_hosts_pass() {
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:1",
            "LOCALHOST",
            "[::1]:80",
            "[::1]",
            "127.1.2.3:9",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "example.com",
            "evil.localhost.example:80",
            "10.0.0.1:80",
            "[::2]:80",
            "",
            "127.0.0.1.nip.io:80",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }
}
