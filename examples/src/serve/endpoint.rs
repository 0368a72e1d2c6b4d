//! Which model servers a `run_group` request may make the server call.
//!
//! Design decision: every check is made on the parsed URL (`http::Uri`,
//! the parser the HTTP client itself uses), never on its text, so what is
//! checked is what is called:
//! - the scheme is `http` or `https`;
//! - a URL with user information (`http://127.0.0.1:1@elsewhere/`) is
//!   refused outright: it is the classic way to make a text check and the
//!   client disagree about the host;
//! - a query, a fragment, a backslash, whitespace or a control character
//!   is refused (none belongs in a base URL);
//! - the host is loopback only as a literal loopback address (`127.0.0.0/8`,
//!   `::1`, `::ffff:127.0.0.0/104`) or the name `localhost`. No other name
//!   is resolved for the check: a name that resolves to loopback now may
//!   resolve elsewhere when the request is sent (DNS rebinding), so it
//!   needs the operator's allowance like any other host;
//! - an allowed endpoint (`--allow-endpoint http://vllm.internal:8000/v1`)
//!   admits the same scheme, host and port (the scheme's default when
//!   none is written) and a path under its path, compared segment by
//!   segment (`/v1` admits `/v1` and `/v1/x`, not `/v1x`).
//!
//! The model client never follows a redirect (`HttpChatModel` is built
//! with `max_redirects(0)`), so an allowed server cannot forward the
//! server's requests elsewhere.

use axum::http::Uri;
use std::net::IpAddr;

/// A model server's address, parsed and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `http` or `https`.
    pub scheme: String,
    /// The host, lowercased; an IPv6 literal without its brackets.
    pub host: String,
    /// The port, the scheme's default when none is written.
    pub port: u16,
    /// The path, without a trailing `/` (empty for the root).
    pub path: String,
}

impl Endpoint {
    /// Parses `url` as a model server's base URL.
    ///
    /// # Errors
    /// A sentence saying what is wrong with it.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        if url.len() > 2048 {
            return Err("longer than 2048 bytes".into());
        }
        if url.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '\\' | '?' | '#')) {
            return Err("holds whitespace, a control character, `\\`, a query or a fragment".into());
        }
        let uri: Uri = url.parse().map_err(|e| format!("not a URL ({e})"))?;
        let scheme = match uri.scheme_str() {
            Some(s) if s.eq_ignore_ascii_case("http") => "http",
            Some(s) if s.eq_ignore_ascii_case("https") => "https",
            _ => return Err("not an http:// or https:// URL".into()),
        };
        let authority = uri.authority().ok_or("no host")?;
        if authority.as_str().contains('@') {
            return Err("holds user information (`user@host`), which is refused".into());
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        // An address literal in its one canonical spelling.
        let host = host.parse::<IpAddr>().map(|ip| ip.to_string()).unwrap_or(host);
        if host.is_empty() {
            return Err("no host".into());
        }
        let port = authority.port_u16().unwrap_or(if scheme == "https" { 443 } else { 80 });
        let path = uri.path().trim_end_matches('/').to_owned();
        Ok(Endpoint { scheme: scheme.into(), host, port, path })
    }

    /// Whether the host is a loopback address or `localhost`.
    pub fn is_loopback(&self) -> bool {
        if self.host == "localhost" {
            return true;
        }
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V4(v4)) => v4.is_loopback(),
            Ok(IpAddr::V6(v6)) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
            Err(_) => false,
        }
    }

    /// Whether `self` is under `allowed`: the same origin, and a path at
    /// or below `allowed`'s, segment by segment.
    pub fn is_under(&self, allowed: &Endpoint) -> bool {
        self.scheme == allowed.scheme
            && self.host == allowed.host
            && self.port == allowed.port
            && (allowed.path.is_empty()
                || self.path == allowed.path
                || self.path.strip_prefix(allowed.path.as_str()).is_some_and(|rest| rest.starts_with('/')))
    }
}

/// Checks that the server may call `url`: a loopback address, or under an
/// endpoint the operator allowed.
///
/// # Errors
/// Why not, in a sentence.
pub fn check_endpoint(url: &str, allowed: &[Endpoint]) -> Result<Endpoint, String> {
    let endpoint = Endpoint::parse(url)?;
    if endpoint.is_loopback() || allowed.iter().any(|a| endpoint.is_under(a)) {
        Ok(endpoint)
    } else {
        Err("not a loopback address nor under an endpoint the server allows (--allow-endpoint)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(urls: &[&str]) -> Vec<Endpoint> {
        urls.iter().map(|u| Endpoint::parse(u).unwrap()).collect()
    }

    #[test]
    fn loopback_literals_and_localhost_pass() {
        for url in [
            "http://127.0.0.1:8000/v1",
            "http://127.0.0.1/v1",
            "https://LOCALHOST:8443/v1/",
            "http://[::1]:8000/v1",
            "http://127.1.2.3:9/v1",
            "http://[::ffff:127.0.0.1]:8000/v1",
        ] {
            assert!(check_endpoint(url, &[]).is_ok(), "{url}");
        }
    }

    /// Each of these reached another host through the old prefix test.
    #[test]
    fn userinfo_is_refused_whatever_it_holds() {
        for url in [
            "http://127.0.0.1:1@127.0.0.2:9000/v1",
            "http://localhost:1@evil.example/v1",
            "http://127.0.0.1:@evil.example/v1",
            "http://user@127.0.0.1/v1",
            "http://127.0.0.1%40evil.example/v1",
        ] {
            assert!(check_endpoint(url, &[]).is_err(), "{url}");
        }
    }

    #[test]
    fn other_hosts_and_names_that_resolve_to_loopback_are_refused() {
        for url in [
            "http://127.0.0.2.evil.example/v1",
            "http://localhost.evil.example/v1",
            "http://localtest.me:8000/v1",
            "http://0.0.0.0:8000/v1",
            "http://[::]:8000/v1",
            "http://10.0.0.1:8000/v1",
            "ftp://127.0.0.1/v1",
            "127.0.0.1:8000/v1",
            "http://127.0.0.1:8000/v1?x=@evil.example",
            "http://127.0.0.1:8000/v1#@evil.example",
            "http://127.0.0.1:8000\\@evil.example/v1",
            "http:// 127.0.0.1/v1",
        ] {
            assert!(check_endpoint(url, &[]).is_err(), "{url}");
        }
    }

    /// `--allow-endpoint http://h:8000` used to admit `http://h:8000@elsewhere`.
    #[test]
    fn an_allowed_endpoint_is_an_origin_and_a_path_prefix() {
        let a = allowed(&["http://vllm.internal:8000/v1"]);
        assert!(check_endpoint("http://vllm.internal:8000/v1", &a).is_ok());
        assert!(check_endpoint("http://VLLM.internal:8000/v1/", &a).is_ok());
        assert!(check_endpoint("http://vllm.internal:8000/v1/models/x", &a).is_ok());
        for url in [
            "http://vllm.internal:8000/v1x",
            "http://vllm.internal:8001/v1",
            "https://vllm.internal:8000/v1",
            "http://vllm.internal:8000@elsewhere/v1",
            "http://vllm.internal.evil:8000/v1",
            "http://vllm.internal:8000/",
        ] {
            assert!(check_endpoint(url, &a).is_err(), "{url}");
        }
        let root = allowed(&["http://h:8000"]);
        assert!(check_endpoint("http://h:8000/v1", &root).is_ok());
        assert!(check_endpoint("http://h/v1", &allowed(&["http://h:80/"])).is_ok(), "the default port");
        assert!(check_endpoint("http://h:8000@elsewhere/v1", &root).is_err());
        assert!(check_endpoint("http://h:80001/v1", &root).is_err());
    }

    #[test]
    fn an_ipv6_allowance_matches_its_literal() {
        let a = allowed(&["http://[fd00::1]:8000/v1"]);
        assert!(check_endpoint("http://[FD00::1]:8000/v1", &a).is_ok());
        assert!(check_endpoint("http://[fd00::2]:8000/v1", &a).is_err());
    }
}
