//! TLS set up only when a server agrees to speak it. Making a TLS connector loads the
//! system's trusted roots, which took 75–110 ms here: most of a short command (a
//! `history --host H --limit 50` of 120 ms) against a server that answers `sslmode=prefer`'s
//! request with no.

use std::future::Future;
use std::pin::Pin;

use postgres::Socket;
use postgres::tls::{MakeTlsConnect, TlsConnect};
use postgres_native_tls::TlsStream;

/// What `Config::connect` is given: a [`Handshake`] per host, each making its
/// connector only if the server accepts TLS.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LazyTls;

impl MakeTlsConnect<Socket> for LazyTls {
    type Stream = TlsStream<Socket>;
    type TlsConnect = Handshake;
    type Error = native_tls::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Handshake, native_tls::Error> {
        Ok(Handshake {
            domain: domain.to_string(),
        })
    }
}

/// The TLS handshake with one host, its certificate verified against the system's
/// roots for `domain`.
pub(super) struct Handshake {
    domain: String,
}

type Handshaking =
    Pin<Box<dyn Future<Output = Result<TlsStream<Socket>, native_tls::Error>> + Send>>;

impl TlsConnect<Socket> for Handshake {
    type Stream = TlsStream<Socket>;
    type Error = native_tls::Error;
    type Future = Handshaking;

    fn connect(self, stream: Socket) -> Handshaking {
        match native_tls::TlsConnector::new() {
            Ok(connector) => {
                postgres_native_tls::TlsConnector::new(connector, &self.domain).connect(stream)
            }
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
}
