//! A TCP proxy that puts network faults between clients and a redis-server: it forwards bytes,
//! holds them (a partition), delays them, or resets every connection. Std threads only: one
//! acceptor, two pumps per connection, all sharing one `Mutex<Mode>` and its `Condvar`.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a blocked read, write or hold looks again at the proxy's state: the most a
/// mode change or a reset waits to take effect.
const TICK: Duration = Duration::from_millis(20);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Pass,
    Blackhole,
    Latency(Duration),
}

struct Shared {
    mode: Mutex<Mode>,
    changed: Condvar,
    closing: AtomicBool,
    accepted: AtomicUsize,
    links: Mutex<Vec<Link>>,
}

/// One proxied connection: both sockets (kept here so `reset_all` can abort them) and its pumps.
struct Link {
    client: TcpStream,
    upstream: TcpStream,
    cut: Arc<AtomicBool>,
    pumps: Vec<JoinHandle<()>>,
}

/// A fault-injecting proxy on a free 127.0.0.1 port in front of `127.0.0.1:upstream_port`.
/// Dropping it stops every thread and closes every connection.
pub struct FaultProxy {
    port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl FaultProxy {
    /// Starts forwarding to `127.0.0.1:upstream_port`, in pass mode.
    pub fn start(upstream_port: u16) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        // Non-blocking so the acceptor notices `closing` without a wake-up connection.
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let shared = Arc::new(Shared {
            mode: Mutex::new(Mode::Pass),
            changed: Condvar::new(),
            closing: AtomicBool::new(false),
            accepted: AtomicUsize::new(0),
            links: Mutex::new(Vec::new()),
        });
        let upstream = SocketAddr::from(([127, 0, 0, 1], upstream_port));
        let acceptor = {
            let shared = shared.clone();
            std::thread::spawn(move || accept_loop(&shared, &listener, upstream))
        };
        FaultProxy {
            port,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `redis://127.0.0.1:PORT`, the URL clients use to go through the proxy.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Forwards normally (ends a blackhole, delivering what it held, or a latency).
    pub fn pass(&self) {
        self.set(Mode::Pass);
    }

    /// A partition: nothing is forwarded either way, on existing or new connections (which
    /// are still accepted). Bytes are held, not lost, and delivered after `pass`.
    pub fn blackhole(&self) {
        self.set(Mode::Blackhole);
    }

    /// Delays every forwarded chunk, in each direction, by `delay`.
    pub fn latency(&self, delay: Duration) {
        self.set(Mode::Latency(delay));
    }

    /// Aborts every current connection with a TCP RST on both sides; returns once they are
    /// closed. New connections are served as before.
    pub fn reset_all(&self) {
        let links = std::mem::take(&mut *self.shared.links.lock().unwrap());
        for link in &links {
            link.cut.store(true, Ordering::SeqCst);
            abort_on_close(&link.client);
            abort_on_close(&link.upstream);
        }
        self.shared.changed.notify_all();
        // The pumps hold the other descriptors of each socket: the RST goes out when the
        // last one closes, after they are joined and `links` drops.
        for link in links {
            for pump in link.pumps {
                let _ = pump.join();
            }
        }
    }

    /// How many client connections were accepted so far (reconnections show up here).
    pub fn connections(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    fn set(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
        self.shared.changed.notify_all();
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        self.shared.changed.notify_all();
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let links = std::mem::take(&mut *self.shared.links.lock().unwrap());
        for link in links {
            for pump in link.pumps {
                let _ = pump.join();
            }
        }
    }
}

fn accept_loop(shared: &Arc<Shared>, listener: &TcpListener, upstream: SocketAddr) {
    while !shared.closing.load(Ordering::SeqCst) {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
        };
        shared.accepted.fetch_add(1, Ordering::SeqCst);
        // The upstream is local and always reachable: a blackhole holds bytes, not connects.
        let Ok(server) = TcpStream::connect_timeout(&upstream, Duration::from_secs(2)) else {
            continue;
        };
        let mut links = shared.links.lock().unwrap();
        links.retain(|l| !l.pumps.iter().all(JoinHandle::is_finished));
        if let Some(link) = open_link(shared, client, server) {
            links.push(link);
        }
    }
}

fn open_link(shared: &Arc<Shared>, client: TcpStream, upstream: TcpStream) -> Option<Link> {
    for s in [&client, &upstream] {
        s.set_nonblocking(false).ok()?;
        s.set_nodelay(true).ok()?;
        // Timeouts let blocked pumps see a cut or the proxy closing.
        s.set_read_timeout(Some(TICK)).ok()?;
        s.set_write_timeout(Some(TICK)).ok()?;
    }
    let cut = Arc::new(AtomicBool::new(false));
    let mut pumps = Vec::new();
    for (from, to) in [(&client, &upstream), (&upstream, &client)] {
        let (from, to) = (from.try_clone().ok()?, to.try_clone().ok()?);
        let (shared, cut) = (shared.clone(), cut.clone());
        pumps.push(std::thread::spawn(move || pump(&shared, from, to, &cut)));
    }
    Some(Link {
        client,
        upstream,
        cut,
        pumps,
    })
}

/// Copies `from` to `to` chunk by chunk, each chunk held as the mode says. An end of stream
/// or an error is passed on like data (after the same hold), so a partition also holds FINs.
fn pump(shared: &Shared, mut from: TcpStream, mut to: TcpStream, cut: &AtomicBool) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if stopped(shared, cut) {
            return;
        }
        let read = from.read(&mut buf);
        let read_at = Instant::now();
        let n = match read {
            Err(e) if waiting(&e) => continue,
            Ok(0) => {
                if shared.hold(read_at, cut) {
                    let _ = to.shutdown(Shutdown::Write);
                }
                return;
            }
            Err(_) => {
                if shared.hold(read_at, cut) {
                    let _ = to.shutdown(Shutdown::Both);
                }
                return;
            }
            Ok(n) => n,
        };
        if !shared.hold(read_at, cut) {
            return;
        }
        let mut sent = 0;
        while sent < n {
            if stopped(shared, cut) {
                return;
            }
            match to.write(&buf[sent..n]) {
                Ok(0) => return,
                Ok(k) => sent += k,
                Err(e) if waiting(&e) => {}
                Err(_) => {
                    let _ = from.shutdown(Shutdown::Both);
                    return;
                }
            }
        }
    }
}

impl Shared {
    /// Waits until a chunk read at `read_at` may be forwarded; false when its link was cut
    /// or the proxy is closing (the chunk is then dropped with the connection).
    fn hold(&self, read_at: Instant, cut: &AtomicBool) -> bool {
        let mut mode = self.mode.lock().unwrap();
        loop {
            if stopped(self, cut) {
                return false;
            }
            let wait = match *mode {
                Mode::Pass => return true,
                Mode::Blackhole => TICK,
                Mode::Latency(delay) => {
                    match (read_at + delay).checked_duration_since(Instant::now()) {
                        None => return true,
                        Some(left) if left.is_zero() => return true,
                        Some(left) => left.min(TICK),
                    }
                }
            };
            mode = self.changed.wait_timeout(mode, wait).unwrap().0;
        }
    }
}

fn stopped(shared: &Shared, cut: &AtomicBool) -> bool {
    cut.load(Ordering::SeqCst) || shared.closing.load(Ordering::SeqCst)
}

/// A read or write timeout (what SO_RCVTIMEO/SO_SNDTIMEO report), or a signal.
fn waiting(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
    )
}

/// SO_LINGER 0: closing the socket sends a RST instead of a FIN.
fn abort_on_close(stream: &TcpStream) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid open socket and a correctly sized, initialised option value.
    let rc = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "SO_LINGER: {}", std::io::Error::last_os_error());
}
