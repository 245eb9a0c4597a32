//! U7 with the real binary: the address in the kiosk's QR code
//! (`public_url` in `GET /api/config`) is the device's LAN IP address when the server listens
//! on every interface, follows a changed address (a DHCP renewal), and comes with the `.local`
//! name and the guest Wi-Fi network from the settings.
//!
//! The LAN test runs the server in a network namespace of its own, joined to this one by a
//! veth pair with known addresses; it needs root: on CI (root) it fails without it, elsewhere
//! it says so when skipped.

use crate::support;

use xo_client::privileged;

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use support::request;

const BIN: &str = env!("CARGO_BIN_EXE_firmware-host");

/// The real server, started by `command` (the binary, or `ip netns exec NS` and the binary);
/// killed when dropped.
struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // Best effort on a failing test: the process must not outlive it.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn server_command(netns: Option<&str>) -> Command {
    let mut command = match netns {
        Some(ns) => {
            let mut c = Command::new("ip");
            c.args(["netns", "exec", ns, BIN]);
            c
        }
        None => Command::new(BIN),
    };
    for var in [
        "XO_BIND",
        "XO_PUBLIC_URL",
        "XO_GUEST_WIFI_SSID",
        "XO_GUEST_WIFI_PASSWORD",
    ] {
        command.env_remove(var);
    }
    command
}

/// Starts the server with `args` and a fresh data directory; waits for its port file.
fn start(netns: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    let port_file = dir.path().join("port");
    let mut command = server_command(netns);
    command
        .args(args)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--port-file")
        .arg(&port_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in env {
        command.env(k, v);
    }
    let child = command.spawn().expect("start firmware-host");
    let mut server = Server {
        child,
        port: 0,
        _dir: dir,
    };
    server.port = wait_for_port(&port_file, &mut server.child);
    server
}

fn wait_for_port(port_file: &Path, child: &mut Child) -> u16 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(port_file)
            && let Ok(port) = text.trim().parse()
        {
            return port;
        }
        if let Some(status) = child.try_wait().expect("wait") {
            panic!("firmware-host exited before listening: {status}");
        }
        assert!(Instant::now() < deadline, "no port file within 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn config(addr: SocketAddr) -> serde_json::Value {
    let reply = request(addr, "GET", "/api/config", &[], None).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

fn local_url(port: u16) -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    let name = name.strip_suffix(".local").unwrap_or(name);
    Some(format!("http://{name}.local:{port}"))
}

/// The host part of `http://HOST:PORT` as an IP address, if it is one.
fn url_ip(url: &str) -> Option<IpAddr> {
    let rest = url.strip_prefix("http://")?;
    let host = rest.rsplit_once(':').map_or(rest, |(host, _)| host);
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A network namespace joined to this one by a veth pair; deleted (with its end of the pair)
/// when dropped.
struct Netns {
    name: String,
    inside: String,
}

impl Netns {
    /// `host_ip` on this side, `ns_ip` inside (both `/24`), a default route through this side.
    fn new(tag: &str, host_ip: &str, ns_ip: &str) -> Netns {
        let name = format!("xo-{tag}-{}", std::process::id());
        // Interface names have at most 15 bytes.
        let outside = format!("xoh{}{tag}", std::process::id() % 100_000);
        let inside = format!("xon{}{tag}", std::process::id() % 100_000);
        ip(&["netns", "add", &name]);
        let ns = Netns {
            name,
            inside: inside.clone(),
        };
        ip(&[
            "link", "add", &outside, "type", "veth", "peer", "name", &inside, "netns", &ns.name,
        ]);
        ip(&["addr", "add", &format!("{host_ip}/24"), "dev", &outside]);
        ip(&["link", "set", &outside, "up"]);
        ip(&["-n", &ns.name, "link", "set", "lo", "up"]);
        ip(&[
            "-n",
            &ns.name,
            "addr",
            "add",
            &format!("{ns_ip}/24"),
            "dev",
            &inside,
        ]);
        ip(&["-n", &ns.name, "link", "set", &inside, "up"]);
        ip(&["-n", &ns.name, "route", "add", "default", "via", host_ip]);
        // As systemd-networkd sets it: removing the first address of a subnet keeps the others.
        let out = Command::new("ip")
            .args(["netns", "exec", &ns.name, "sh", "-c"])
            .arg("echo 1 >/proc/sys/net/ipv4/conf/all/promote_secondaries")
            .output()
            .expect("run ip netns exec");
        assert!(
            out.status.success(),
            "promote_secondaries: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ns
    }

    fn addr(&self, action: &str, ns_ip: &str) {
        ip(&[
            "-n",
            &self.name,
            "addr",
            action,
            &format!("{ns_ip}/24"),
            "dev",
            &self.inside,
        ]);
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace deletes its veth end, and with it the pair. Best effort: a
        // failure leaves only an empty namespace behind.
        let _ = Command::new("ip")
            .args(["netns", "delete", &self.name])
            .status();
    }
}

/// Different subnets for tests running at once in this process.
static SUBNET: AtomicU32 = AtomicU32::new(0);

#[tokio::test]
async fn public_url_is_the_lan_ip_address_and_follows_a_dhcp_change() {
    let test = "public_url_is_the_lan_ip_address_and_follows_a_dhcp_change";
    if !privileged::root_or_skip(test, "a network namespace") {
        return;
    }
    let net = 200 + SUBNET.fetch_add(1, Ordering::Relaxed);
    let (host_ip, first, second) = (
        format!("10.{net}.77.1"),
        format!("10.{net}.77.2"),
        format!("10.{net}.77.3"),
    );
    let ns = Netns::new("lan", &host_ip, &first);
    // Port 80, as on the Pi: the namespace has no other server, and the URL has no port.
    let server = start(Some(&ns.name), &["--bind", "0.0.0.0:80"], &[]);
    assert_eq!(server.port, 80);
    let at = |ip: &str| -> SocketAddr { format!("{ip}:80").parse().expect("addr") };

    let now = config(at(&first)).await;
    assert_eq!(now["public_url"], format!("http://{first}"), "{now}");
    assert_eq!(
        now["local_url"].as_str().map(str::to_owned),
        local_url(80).map(|u| u.replace(":80", "")),
        "{now}"
    );
    assert_eq!(now["wifi"], serde_json::Value::Null, "{now}");

    // A renewal that hands out another address: both are there for a moment, then only the
    // new one. A burst of readers meanwhile sees one of the two, never loopback or nothing.
    ns.addr("add", &second);
    let barrier = Arc::new(tokio::sync::Barrier::new(16));
    let burst = (0..16).map(|i| {
        let barrier = Arc::clone(&barrier);
        let target = at(if i % 2 == 0 { &first } else { &second });
        tokio::spawn(async move {
            barrier.wait().await;
            config(target).await["public_url"].clone()
        })
    });
    let seen = futures_util::future::join_all(burst).await;
    for url in seen {
        let url = url.expect("reader task");
        assert!(
            url == format!("http://{first}") || url == format!("http://{second}"),
            "{url}"
        );
    }
    ns.addr("del", &first);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = config(at(&second)).await;
        if now["public_url"] == format!("http://{second}") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new address is not shown 30 s after the change: {now}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(server);
    privileged::ran("public_url");
}

#[tokio::test]
async fn public_url_on_all_interfaces_is_an_ip_address_never_loopback() {
    let server = start(None, &["--bind", "0.0.0.0:0"], &[]);
    let now = config(SocketAddr::from(([127, 0, 0, 1], server.port))).await;
    let public_url = now["public_url"].as_str().expect("public_url is a string");
    let has_lan = Command::new("ip")
        .args(["-o", "-4", "addr", "show", "scope", "global"])
        .output()
        .is_ok_and(|o| !o.stdout.is_empty());
    if has_lan {
        let ip = url_ip(public_url).unwrap_or_else(|| panic!("not an IP address: {now}"));
        assert!(!ip.is_loopback(), "{now}");
        assert!(public_url.ends_with(&format!(":{}", server.port)), "{now}");
    } else {
        assert_eq!(now["public_url"], now["local_url"], "no LAN: the name");
    }
    assert_eq!(
        now["local_url"].as_str().map(str::to_owned),
        local_url(server.port),
        "{now}"
    );
}

#[tokio::test]
async fn a_configured_public_url_is_kept_and_the_guest_wifi_is_served() {
    let ssid = "Café \"Guest\"; net";
    let server = start(
        None,
        &[
            "--bind",
            "0.0.0.0:0",
            "--public-url",
            "http://kiosk.example",
        ],
        &[
            ("XO_GUEST_WIFI_SSID", ssid),
            ("XO_GUEST_WIFI_PASSWORD", "correct horse"),
        ],
    );
    let now = config(SocketAddr::from(([127, 0, 0, 1], server.port))).await;
    assert_eq!(now["public_url"], "http://kiosk.example", "{now}");
    assert_eq!(
        now["wifi"],
        serde_json::json!({"ssid": ssid, "security": "WPA", "password": "correct horse"}),
        "{now}"
    );

    let open = start(
        None,
        &["--bind", "127.0.0.1:0"],
        &[("XO_GUEST_WIFI_SSID", "Open Guest")],
    );
    let now = config(SocketAddr::from(([127, 0, 0, 1], open.port))).await;
    assert_eq!(
        now["wifi"],
        serde_json::json!({"ssid": "Open Guest", "security": "nopass", "password": null}),
        "{now}"
    );
    assert_eq!(now["public_url"], format!("http://127.0.0.1:{}", open.port));
    assert_eq!(
        now["local_url"],
        serde_json::Value::Null,
        "bound to one address"
    );
}

#[test]
fn bad_guest_wifi_settings_stop_the_start_with_a_clear_error() {
    for (env, needle) in [
        (
            vec![
                ("XO_GUEST_WIFI_SSID", "CafeGuest"),
                ("XO_GUEST_WIFI_PASSWORD", "short"),
            ],
            "8 to 63 bytes",
        ),
        (
            vec![("XO_GUEST_WIFI_SSID", "a name longer than thirty-two bytes")],
            "1 to 32 bytes",
        ),
        (
            vec![("XO_GUEST_WIFI_PASSWORD", "no network named")],
            "--guest-wifi-ssid",
        ),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut command = server_command(None);
        command
            .args(["--bind", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .stdin(Stdio::null());
        for (k, v) in &env {
            command.env(k, v);
        }
        let out = command.output().expect("run firmware-host");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{env:?}: {stderr}");
        assert!(stderr.contains(needle), "{env:?}: {stderr}");
    }
}
