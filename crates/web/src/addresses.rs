//! Which addresses a fetch may reach: public ones, and the hosts the user's own config allows.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::fetch::FetchError;

/// Whether `ip` is on the public internet: not loopback, unspecified, private (RFC 1918,
/// unique local), link-local (169.254.0.0/16 holds the cloud metadata services), shared
/// (100.64.0.0/10), multicast, broadcast, documentation or reserved; an IPv4 address inside an
/// IPv6 one (mapped, compatible, NAT64) is judged as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (18..20).contains(&b))
        || a >= 240)
}

fn public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return public_v4(v4);
    }
    let segments = ip.segments();
    // ::a.b.c.d (deprecated "compatible") and 64:ff9b::/96 (NAT64) carry an IPv4 address.
    let embedded = Ipv4Addr::new(
        (segments[6] >> 8) as u8,
        segments[6] as u8,
        (segments[7] >> 8) as u8,
        segments[7] as u8,
    );
    if segments[..6] == [0; 6] && !ip.is_loopback() && !ip.is_unspecified() {
        return public_v4(embedded);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return public_v4(embedded);
    }
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (segments[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (segments[0] & 0xffc0) == 0xfec0 // site-local fec0::/10
        || segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
}

/// Where fetches may go besides the public internet: `host:port` or `host` entries from the
/// user's own config (`[web] allow_private_hosts`), never from a project's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    allowed: Vec<String>,
}

impl Reach {
    /// Public addresses and the hosts `allowed` names (`127.0.0.1:8080`, `intranet.local`).
    pub fn new(allowed: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            allowed: allowed
                .into_iter()
                .map(|a| a.into().trim().to_ascii_lowercase())
                .filter(|a| !a.is_empty())
                .collect(),
        }
    }

    /// Whether the user allowed `host` on `port` (an entry without a port allows every port).
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let host = host.to_ascii_lowercase();
        self.allowed.iter().any(|entry| match split_port(entry) {
            (name, Some(p)) => name == host && p == port,
            (name, None) => name == host,
        })
    }

    /// Whether the user allowed `host` on any port (what a resolver, which sees no port,
    /// can ask).
    pub(crate) fn allows_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.allowed.iter().any(|entry| split_port(entry).0 == host)
    }
}

/// `host:port`, `[v6]:port`, `host` or a bare IPv6 address, as (host, port).
fn split_port(entry: &str) -> (&str, Option<u16>) {
    if let Some(rest) = entry.strip_prefix('[')
        && let Some((host, tail)) = rest.split_once(']')
    {
        return (host, tail.strip_prefix(':').and_then(|p| p.parse().ok()));
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => match port.parse() {
            Ok(port) => (host, Some(port)),
            Err(_) => (entry, None),
        },
        _ => (entry, None),
    }
}

/// Whether a client's resolver may answer with the private addresses of the hosts the user
/// allowed. A resolver sees no port, so a request goes through the `Allowed` client only when
/// the user allowed its host **and port**; every other request goes through a `Refused` one,
/// and an entry `localhost:8080` opens no other port of that name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Private {
    /// Only public addresses, whatever the host.
    Refused,
    /// The allowed hosts' private addresses too.
    Allowed,
}

/// The resolver the client connects through: a name that resolves to any address that is not
/// public — even one among public ones — is refused, unless the user allowed the host (and the
/// client is the `Allowed` one). The connection then uses exactly the addresses checked here,
/// so a name cannot change its answer between check and connect.
#[derive(Debug)]
pub(crate) struct Guarded {
    pub(crate) reach: Reach,
    pub(crate) private: Private,
}

impl Resolve for Guarded {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let allowed = self.private == Private::Allowed && self.reach.allows_host(&host);
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| {
                    Box::new(FetchError::Resolve {
                        host: host.clone(),
                        message: e.to_string(),
                    }) as Box<dyn std::error::Error + Send + Sync>
                })?
                .collect();
            let found = screen(&host, found, allowed)
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            Ok(Box::new(found.into_iter()) as Addrs)
        })
    }
}

/// The addresses `host` resolved to, refused as a whole when any of them is not public and the
/// host is not `allowed`: a connection may use any address of the answer, not only the first.
fn screen(
    host: &str,
    found: Vec<SocketAddr>,
    allowed: bool,
) -> Result<Vec<SocketAddr>, FetchError> {
    match found.iter().find(|a| !is_public(a.ip())) {
        Some(private) if !allowed => Err(FetchError::Private {
            host: host.to_string(),
            ip: private.ip(),
        }),
        _ => Ok(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_link_local_and_embedded_addresses_are_not_public() {
        let closed = [
            "127.0.0.1",
            "127.5.5.5",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ];
        for ip in closed {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "172.32.0.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn an_answer_mixing_public_and_private_addresses_is_refused_whole() {
        let addr = |text: &str| -> SocketAddr { text.parse().unwrap() };
        let cases = [
            vec![addr("93.184.216.34:0"), addr("127.0.0.1:0")],
            vec![addr("[2606:4700::1111]:0"), addr("[::1]:0")],
            vec![
                addr("8.8.8.8:0"),
                addr("8.8.4.4:0"),
                addr("169.254.169.254:0"),
            ],
            vec![addr("10.0.0.1:0"), addr("93.184.216.34:0")],
        ];
        for found in cases {
            let refused = screen("mixed.example", found.clone(), false);
            assert!(
                matches!(refused, Err(FetchError::Private { .. })),
                "{found:?}"
            );
            // The user's own host may be private.
            assert_eq!(screen("mixed.example", found.clone(), true).unwrap(), found);
        }
        let public = vec![addr("93.184.216.34:0"), addr("[2606:4700::1111]:0")];
        assert_eq!(
            screen("example.com", public.clone(), false).unwrap(),
            public
        );
    }

    #[test]
    fn the_users_hosts_are_matched_with_or_without_a_port() {
        let reach = Reach::new(["127.0.0.1:8080", "Intranet.Local", "[::1]:9000"]);
        assert!(reach.allows("127.0.0.1", 8080));
        assert!(!reach.allows("127.0.0.1", 8081));
        assert!(reach.allows("intranet.local", 443));
        assert!(reach.allows("[::1]", 9000));
        assert!(!reach.allows("::1", 9001));
        assert!(reach.allows_host("127.0.0.1"));
        assert!(!Reach::default().allows("localhost", 80));
    }
}
