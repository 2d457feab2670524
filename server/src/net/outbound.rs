//! The response bytes of watch streams the process holds until the socket takes them,
//! bounded per stream and over the whole server.
//!
//! A slow client is not a reason to buffer: gRPC flow control lets a server push as
//! much as the client's windows allow (megabytes per connection with hyper's
//! defaults), and what the socket cannot take yet waits in h2's send queue. With
//! 10,000 subscribers syncing at once that was most of the server's memory. So a
//! subscriber takes [`Credit`] for a message before it sends it: from its stream's
//! share ([`PER_STREAM`]) and then from the server's [`Budget`]. The credit travels
//! with the message to tonic, which writes the message into a response frame; the
//! [`Pacing`] middleware then ties the credit to that frame's bytes
//! (`Bytes::from_owner`), so it comes back when h2 has written the frame to the socket
//! and drops it. A subscriber whose client does not read waits for credit, and its
//! events wait in the SQL log, not in memory.
//!
//! Only the methods in [`PACED`] are paced (WatchStatus, whose subscribers number in
//! the thousands and whose snapshots are large); other responses pass as they are.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::body::Body;

use super::middleware::{Inner, Middleware, Reply};

/// The bytes one stream may hold (written to the client's queue, not yet to the
/// socket): four full watch messages.
pub const PER_STREAM: usize = 4 * 17 * 1024;

/// The bytes all paced streams together may hold by default.
pub const BUDGET: usize = 64 * 1024 * 1024;

/// The server-wide budget of held response bytes.
#[derive(Clone)]
pub struct Budget {
    bytes: Arc<Semaphore>,
    size: usize,
    /// Shows the bytes held.
    gauge: prometheus::IntGauge,
}

impl Budget {
    pub fn new(size: usize, gauge: prometheus::IntGauge) -> Budget {
        let size = size.clamp(PER_STREAM, u32::MAX as usize);
        Budget {
            bytes: Arc::new(Semaphore::new(size)),
            size,
            gauge,
        }
    }

    /// Shows the bytes held now.
    fn show(&self) {
        let held = self.size - self.bytes.available_permits();
        self.gauge.set(held as i64);
    }
}

/// The pacing of one response stream, shared by the handler that writes its messages
/// and the response body that carries them (through the request's extensions).
pub struct Outbound {
    budget: Budget,
    stream: Arc<Semaphore>,
    /// The credit of the messages tonic took and has not yet put into a frame.
    taken: Mutex<Option<Credit>>,
}

/// Room for one message's bytes, from its stream's share and the server's budget.
/// Given back when dropped: with its frame, or with its message if the stream ends
/// before the message is sent.
pub struct Credit {
    stream: OwnedSemaphorePermit,
    budget: OwnedSemaphorePermit,
    /// Dropped after the permits (fields drop in order): shows what is left.
    _shown: Shown,
}

/// Shows the budget's bytes held when dropped.
struct Shown(Budget);

impl Drop for Shown {
    fn drop(&mut self) {
        self.0.show();
    }
}

impl Credit {
    fn merge(&mut self, other: Credit) {
        self.stream.merge(other.stream);
        self.budget.merge(other.budget);
    }
}

impl Outbound {
    fn new(budget: Budget) -> Outbound {
        Outbound {
            budget,
            stream: Arc::new(Semaphore::new(PER_STREAM)),
            taken: Mutex::new(None),
        }
    }

    /// Waits for room for a message of `len` bytes (a message longer than the
    /// stream's share takes all of it).
    pub async fn credit(&self, len: usize) -> Credit {
        // gRPC's framing adds five bytes to every message.
        let len = len + 5;
        let permits = |cap: usize| len.min(cap) as u32;
        let stream = self.stream.clone().acquire_many_owned(permits(PER_STREAM));
        let stream = stream.await.expect("a stream's semaphore is never closed");
        let budget = self.budget.bytes.clone();
        let budget = budget.acquire_many_owned(permits(self.budget.size));
        let budget = budget
            .await
            .expect("the budget's semaphore is never closed");
        self.budget.show();
        Credit {
            stream,
            budget,
            _shown: Shown(self.budget.clone()),
        }
    }

    /// The messages' stream as tonic takes it: each message's credit moves to the
    /// frame it is written into.
    pub fn stream<S, T>(self: Arc<Self>, messages: S) -> Paced<S>
    where
        S: Stream<Item = (T, Option<Credit>)> + Unpin,
    {
        Paced {
            messages,
            outbound: self,
        }
    }

    fn take(&self, credit: Credit) {
        let mut taken = self.taken.lock().expect("outbound lock");
        match taken.as_mut() {
            Some(held) => held.merge(credit),
            None => *taken = Some(credit),
        }
    }

    /// The credit of the messages written into the frame tonic just yielded.
    fn framed(&self) -> Option<Credit> {
        self.taken.lock().expect("outbound lock").take()
    }
}

/// A stream of messages whose credit is handed to the frames carrying them.
pub struct Paced<S> {
    messages: S,
    outbound: Arc<Outbound>,
}

impl<S, T> Stream for Paced<S>
where
    S: Stream<Item = (T, Option<Credit>)> + Unpin,
{
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        match Pin::new(&mut self.messages).poll_next(cx) {
            Poll::Ready(Some((message, credit))) => {
                // Tonic writes the message into its frame buffer before it asks for the
                // next one or yields the frame: the credit is the frame's from now.
                if let Some(credit) = credit {
                    self.outbound.take(credit);
                }
                Poll::Ready(Some(message))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The methods whose handlers take credit (a method's path ends with one).
const PACED: &[&str] = &["/WatchStatus"];

/// The middleware: a paced call gets an [`Outbound`] in its request's extensions,
/// and its response frames keep the credit of the messages they carry.
#[derive(Clone)]
pub struct Pacing {
    budget: Budget,
}

impl Pacing {
    pub fn new(budget: Budget) -> Pacing {
        Pacing { budget }
    }
}

impl Middleware for Pacing {
    fn call<S: Inner>(
        &self,
        mut inner: S,
        mut request: http::Request<Body>,
    ) -> impl Future<Output = Reply<S::Error>> + Send + 'static {
        let paced = PACED.iter().any(|m| request.uri().path().ends_with(m));
        let outbound = paced.then(|| Arc::new(Outbound::new(self.budget.clone())));
        if let Some(outbound) = &outbound {
            request.extensions_mut().insert(outbound.clone());
        }
        async move {
            let response = inner.call(request).await?;
            Ok(match outbound {
                Some(outbound) => response.map(|body| Body::new(Framed { body, outbound })),
                None => response,
            })
        }
    }
}

/// A response body whose data frames hold the credit of their messages until h2 drops
/// them (written to the socket, or the stream reset).
struct Framed {
    body: Body,
    outbound: Arc<Outbound>,
}

/// A frame's bytes with the credit they hold.
struct Held {
    bytes: Bytes,
    _credit: Credit,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl http_body::Body for Framed {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, tonic::Status>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        let Poll::Ready(Some(Ok(frame))) = polled else {
            return polled;
        };
        let frame = match (frame.into_data(), this.outbound.framed()) {
            (Ok(bytes), Some(credit)) => http_body::Frame::data(Bytes::from_owner(Held {
                bytes,
                _credit: credit,
            })),
            (Ok(bytes), None) => http_body::Frame::data(bytes),
            (Err(frame), credit) => {
                // Trailers carry no message; any credit left comes back now.
                drop(credit);
                frame
            }
        };
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
