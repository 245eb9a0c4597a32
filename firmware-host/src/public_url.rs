//! The address phones should open (U7): what the kiosk's QR code encodes, what
//! `GET /api/config` serves and what the status display shows.
//!
//! `--public-url`, or the owner's setting ([`PublicUrl::set_configured`]), fixes it. Otherwise
//! a server bound to one address shows that address, and a server listening on every
//! interface shows the device's current LAN IP address: `.local` names do not resolve on
//! every phone and network (older Android, networks that drop
//! multicast), an IP address does. The `.local` name is served beside it (`local_url`) for
//! people to read. The interfaces are read again at most every [`REFRESH`], so a new address
//! after a DHCP renewal or a change of network shows within that time.

use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How long a read of the interfaces is reused.
pub const REFRESH: Duration = Duration::from_secs(5);

/// What `GET /api/config` serves about the address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Addresses {
    /// The address the QR code encodes.
    pub public_url: String,
    /// `http://HOSTNAME.local[:PORT]` when listening on every interface, for people to read.
    pub local_url: Option<String>,
}

/// One address of one network interface, as the chooser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub interface: String,
    pub ip: IpAddr,
    /// The interface is up and running (carrier).
    pub up: bool,
}

/// Lists the addresses of this machine's interfaces.
type Lister = Box<dyn Fn() -> Vec<Candidate> + Send + Sync>;

/// The current addresses, re-read from the interfaces when older than [`REFRESH`].
pub struct PublicUrl {
    /// `--public-url`, or the owner's setting.
    configured: Mutex<Option<String>>,
    bound: SocketAddr,
    list: Lister,
    refresh: Duration,
    cache: Mutex<Option<(Instant, Addresses)>>,
}

impl std::fmt::Debug for PublicUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublicUrl")
            .field("configured", &self.configured)
            .field("bound", &self.bound)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl PublicUrl {
    /// For a server bound to `bound`, with `--public-url` as `configured`.
    pub fn new(configured: Option<String>, bound: SocketAddr) -> PublicUrl {
        PublicUrl::with_lister(configured, bound, Box::new(interfaces), REFRESH)
    }

    /// As [`PublicUrl::new`] with the interfaces listed by `list` and re-read after `refresh`.
    pub fn with_lister(
        configured: Option<String>,
        bound: SocketAddr,
        list: Lister,
        refresh: Duration,
    ) -> PublicUrl {
        PublicUrl {
            configured: Mutex::new(configured),
            bound,
            list,
            refresh,
            cache: Mutex::new(None),
        }
    }

    /// Fixes the address (`None`: automatic again), in force from the next [`current`](Self::current).
    pub fn set_configured(&self, configured: Option<String>) {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        *self
            .configured
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = configured;
        *cache = None;
    }

    /// The addresses now (read again from the interfaces when the last read is stale).
    pub fn current(&self) -> Addresses {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((read, addresses)) = cache.as_ref()
            && read.elapsed() < self.refresh
        {
            return addresses.clone();
        }
        let addresses = self.read();
        if cache.as_ref().is_none_or(|(_, old)| *old != addresses) {
            tracing::info!(
                public_url = addresses.public_url,
                local_url = addresses.local_url.as_deref().unwrap_or("none"),
                "the address phones should open"
            );
        }
        *cache = Some((Instant::now(), addresses.clone()));
        addresses
    }

    fn read(&self) -> Addresses {
        let port = self.bound.port();
        let everywhere = self.bound.ip().is_unspecified();
        let local_url = everywhere
            .then(|| {
                hostname().map(|name| {
                    let name = name.strip_suffix(".local").unwrap_or(&name).to_owned();
                    url(&format!("{name}.local"), port)
                })
            })
            .flatten();
        let configured = self
            .configured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let public_url = if let Some(configured) = configured {
            configured
        } else if !everywhere {
            ip_url(self.bound.ip(), port)
        } else {
            let ipv4_only = self.bound.is_ipv4();
            let routed = route_source(false)
                .into_iter()
                .chain((!ipv4_only).then(|| route_source(true)).flatten());
            match (choose(&(self.list)(), routed, ipv4_only), &local_url) {
                (Some(ip), _) => ip_url(ip, port),
                // Without any LAN address (no network yet) the name is the best there is.
                (None, Some(name)) => name.clone(),
                (None, None) => ip_url(std::net::Ipv4Addr::LOCALHOST.into(), port),
            }
        };
        Addresses {
            public_url,
            local_url,
        }
    }
}

/// Picks the LAN address phones should open from `candidates`: the source address of the
/// default route (`routed`, first match wins) when it belongs to a usable interface; else a
/// private IPv4 address, then any other IPv4 address, then a global or unique-local IPv6
/// address, in interface order; a link-local IPv4 address (a cable straight to a laptop) only
/// when nothing else is there. Loopback, down interfaces and IPv6 link-local addresses (which
/// need a scope a URL cannot carry) are never chosen. `ipv4_only` for a server bound to
/// `0.0.0.0`, which IPv6 clients cannot reach.
pub fn choose(
    candidates: &[Candidate],
    routed: impl IntoIterator<Item = IpAddr>,
    ipv4_only: bool,
) -> Option<IpAddr> {
    let usable: Vec<IpAddr> = candidates
        .iter()
        .filter(|c| c.up && !c.ip.is_loopback() && !c.ip.is_unspecified() && !c.ip.is_multicast())
        .map(|c| c.ip)
        .filter(|ip| match ip {
            IpAddr::V4(_) => true,
            IpAddr::V6(v6) => !ipv4_only && !v6.is_unicast_link_local(),
        })
        .collect();
    let link_local = |ip: &IpAddr| matches!(ip, IpAddr::V4(v4) if v4.is_link_local());
    if let Some(ip) = routed
        .into_iter()
        .find(|ip| usable.contains(ip) && !link_local(ip))
    {
        return Some(ip);
    }
    let rank = |ip: &IpAddr| match ip {
        IpAddr::V4(v4) if v4.is_private() => 0,
        IpAddr::V4(v4) if !v4.is_link_local() => 1,
        IpAddr::V6(_) => 2,
        IpAddr::V4(_) => 3,
    };
    // min_by_key keeps the first of equals: interface order breaks ties.
    usable.iter().copied().min_by_key(rank)
}

/// `http://HOST[:PORT]`, port 80 (and 0, unknown) left out.
fn url(host: &str, port: u16) -> String {
    match port {
        0 | 80 => format!("http://{host}"),
        _ => format!("http://{host}:{port}"),
    }
}

fn ip_url(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(v4) => url(&v4.to_string(), port),
        IpAddr::V6(v6) => url(&format!("[{v6}]"), port),
    }
}

/// The source address the kernel would use towards the Internet: a UDP socket's `connect`
/// picks a route and sends nothing. `None` without a default route.
fn route_source(ipv6: bool) -> Option<IpAddr> {
    let (local, probe): (SocketAddr, SocketAddr) = if ipv6 {
        // 2001:db8::/32 and 192.0.2.0/24 are documentation ranges: no packet is meant for them.
        (
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
            ("2001:db8::1".parse::<std::net::Ipv6Addr>().ok()?, 9).into(),
        )
    } else {
        (
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into(),
            (std::net::Ipv4Addr::new(192, 0, 2, 1), 9).into(),
        )
    };
    let socket = UdpSocket::bind(local).ok()?;
    socket.connect(probe).ok()?;
    Some(socket.local_addr().ok()?.ip())
}

/// This machine's interface addresses (getifaddrs). A failure reads as no interfaces, which
/// falls back to the `.local` name, and is logged.
fn interfaces() -> Vec<Candidate> {
    match if_addrs::get_if_addrs() {
        Ok(list) => list
            .into_iter()
            .map(|i| Candidate {
                up: i.is_oper_up() || i.oper_status == if_addrs::IfOperStatus::Unknown,
                ip: i.ip(),
                interface: i.name,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot list the network interfaces");
            Vec::new()
        }
    }
}

/// A guest Wi-Fi network shown as a `WIFI:` QR code beside the game's (`GET /api/config`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestWifi {
    pub ssid: String,
    /// `"WPA"` (WPA/WPA2/WPA3 personal) with a password, `"nopass"` for an open network.
    pub security: &'static str,
    pub password: Option<String>,
}

impl GuestWifi {
    /// Checks the lengths 802.11 allows: an SSID of 1 to 32 bytes, a WPA passphrase of 8 to 63
    /// (ASCII) characters, counted in bytes as the image's settings script counts them; no
    /// password means an open network.
    pub fn new(ssid: &str, password: Option<&str>) -> Result<GuestWifi, String> {
        protocol::rules::check_wifi_ssid(ssid)?;
        let password = password.filter(|p| !p.is_empty());
        if let Some(p) = password {
            protocol::rules::check_wifi_password(p)?;
        }
        Ok(GuestWifi::from_checked(
            ssid.to_owned(),
            password.map(str::to_owned),
        ))
    }

    /// From a name and password already checked by [`GuestWifi::new`] (the flags' parsers).
    pub(crate) fn from_checked(ssid: String, password: Option<String>) -> GuestWifi {
        let password = password.filter(|p| !p.is_empty());
        GuestWifi {
            ssid,
            security: if password.is_some() { "WPA" } else { "nopass" },
            password,
        }
    }
}

/// This machine's host name, from the kernel (Linux) or `HOSTNAME`.
pub fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};
    use std::sync::Arc;

    use super::*;

    fn c(interface: &str, ip: &str, up: bool) -> Candidate {
        Candidate {
            interface: interface.into(),
            ip: ip.parse().expect("ip"),
            up,
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn the_default_route_source_wins_when_its_interface_is_usable() {
        let list = [
            c("lo", "127.0.0.1", true),
            c("eth0", "192.168.1.20", true),
            c("wlan0", "10.0.0.7", true),
        ];
        assert_eq!(choose(&list, [ip("10.0.0.7")], true), Some(ip("10.0.0.7")));
        // A route source that is not one of the interfaces' (a VPN's, say) is not trusted.
        assert_eq!(
            choose(&list, [ip("100.64.0.1")], true),
            Some(ip("192.168.1.20"))
        );
    }

    #[test]
    fn loopback_down_interfaces_and_ipv6_link_local_are_never_chosen() {
        let list = [
            c("lo", "127.0.0.1", true),
            c("lo", "::1", true),
            c("eth0", "192.168.1.20", false),
            c("wlan0", "fe80::1", true),
        ];
        assert_eq!(choose(&list, [ip("127.0.0.1")], false), None);
        assert_eq!(choose(&[], [], false), None);
    }

    #[test]
    fn private_ipv4_before_public_before_ipv6_before_link_local() {
        let list = [
            c("eth1", "169.254.3.4", true),
            c("eth0", "2001:db8::20", true),
            c("wlan0", "203.0.113.5", true),
            c("wlan1", "172.16.0.9", true),
        ];
        assert_eq!(choose(&list, [], false), Some(ip("172.16.0.9")));
        assert_eq!(choose(&list[..3], [], false), Some(ip("203.0.113.5")));
        assert_eq!(choose(&list[..2], [], false), Some(ip("2001:db8::20")));
        assert_eq!(choose(&list[..2], [], true), Some(ip("169.254.3.4")));
        assert_eq!(
            choose(&list[..1], [ip("169.254.3.4")], true),
            Some(ip("169.254.3.4"))
        );
    }

    #[test]
    fn ipv4_only_servers_never_show_an_ipv6_address() {
        let list = [c("eth0", "2001:db8::20", true)];
        assert_eq!(choose(&list, [ip("2001:db8::20")], true), None);
        assert_eq!(
            choose(&list, [ip("2001:db8::20")], false),
            Some(ip("2001:db8::20"))
        );
    }

    #[test]
    fn urls_leave_port_80_out_and_bracket_ipv6() {
        assert_eq!(
            ip_url(Ipv4Addr::new(10, 0, 2, 15).into(), 80),
            "http://10.0.2.15"
        );
        assert_eq!(
            ip_url(Ipv4Addr::new(10, 0, 2, 15).into(), 8080),
            "http://10.0.2.15:8080"
        );
        assert_eq!(
            ip_url(Ipv6Addr::LOCALHOST.into(), 9000),
            "http://[::1]:9000"
        );
    }

    fn lan(list: Arc<Mutex<Vec<Candidate>>>, refresh: Duration) -> PublicUrl {
        PublicUrl::with_lister(
            None,
            "0.0.0.0:8080".parse().expect("addr"),
            Box::new(move || list.lock().expect("list").clone()),
            refresh,
        )
    }

    #[test]
    fn a_changed_lan_address_shows_after_the_refresh() {
        let list = Arc::new(Mutex::new(vec![c("eth0", "192.168.1.20", true)]));
        let url = lan(Arc::clone(&list), Duration::ZERO);
        assert_eq!(url.current().public_url, "http://192.168.1.20:8080");
        if let Some(name) = hostname() {
            let name = name.strip_suffix(".local").unwrap_or(&name).to_owned();
            assert_eq!(
                url.current().local_url,
                Some(format!("http://{name}.local:8080"))
            );
        }
        *list.lock().expect("list") = vec![c("eth0", "192.168.1.77", true)];
        assert_eq!(url.current().public_url, "http://192.168.1.77:8080");
    }

    #[test]
    fn the_interfaces_are_not_read_again_before_the_refresh() {
        let list = Arc::new(Mutex::new(vec![c("eth0", "192.168.1.20", true)]));
        let url = lan(Arc::clone(&list), Duration::from_secs(3600));
        assert_eq!(url.current().public_url, "http://192.168.1.20:8080");
        *list.lock().expect("list") = vec![c("eth0", "192.168.1.77", true)];
        assert_eq!(url.current().public_url, "http://192.168.1.20:8080");
    }

    #[test]
    fn without_a_lan_address_the_local_name_is_shown() {
        let url = lan(Arc::new(Mutex::new(Vec::new())), Duration::ZERO);
        let now = url.current();
        match now.local_url {
            Some(name) => assert_eq!(now.public_url, name),
            None => assert_eq!(now.public_url, "http://127.0.0.1:8080"),
        }
    }

    #[test]
    fn a_configured_or_bound_address_is_kept() {
        let fixed = PublicUrl::new(
            Some("http://kiosk.example".into()),
            "0.0.0.0:80".parse().expect("addr"),
        );
        assert_eq!(fixed.current().public_url, "http://kiosk.example");
        let bound = PublicUrl::new(None, "127.0.0.1:80".parse().expect("addr"));
        assert_eq!(
            bound.current(),
            Addresses {
                public_url: "http://127.0.0.1".into(),
                local_url: None
            }
        );
    }

    #[test]
    fn guest_wifi_lengths_follow_802_11() {
        let open = GuestWifi::new("Café Guest", None).expect("open network");
        assert_eq!((open.security, open.password), ("nopass", None));
        let wpa = GuestWifi::new("CafeGuest", Some("correct horse")).expect("wpa");
        assert_eq!(wpa.security, "WPA");
        assert!(GuestWifi::new("", None).is_err());
        assert!(GuestWifi::new(&"x".repeat(33), None).is_err());
        assert!(GuestWifi::new("CafeGuest", Some("short")).is_err());
        assert!(GuestWifi::new("CafeGuest", Some(&"a".repeat(63))).is_ok());
        assert!(GuestWifi::new("CafeGuest", Some(&"a".repeat(64))).is_err());
        assert_eq!(
            GuestWifi::new("CafeGuest", Some(""))
                .expect("empty is open")
                .security,
            "nopass"
        );
    }
}
