//! Streamable HTTP: rmcp's client transport (sessions, the server's event stream, reconnects)
//! over reqwest, with the raw answers of `tools/list` and `tools/call` kept for the tap.
//!
//! rmcp's own reqwest client parses a JSON answer straight into its types, so for the two
//! requests whose answers are shown as sent, the POST is made here and the body read as JSON
//! first; every other message (the handshake, notifications) goes through rmcp's client.
//!
//! The user's headers are the reqwest client's default headers, marked sensitive, so they
//! never pass through rmcp's configuration (or anything it might log). Redirects are followed
//! only to the same origin: a header meant for one server is never sent to another.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::SseRetryPolicy;
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use serde_json::Value;
use sse_stream::{Sse, SseStream};
use tokio::sync::watch;

use super::tap::Tap;
use super::{Header, McpError};

type HttpError = StreamableHttpError<reqwest::Error>;

/// How much of an HTTP error body an error quotes.
const ERROR_BODY: usize = 2048;

/// A reqwest client that shows the tap what the server answers.
#[derive(Clone)]
pub(crate) struct TapClient {
    inner: reqwest::Client,
    tap: Tap,
    /// Turned true when nothing answers at the server's address any more (a request or the
    /// event stream could not connect): rmcp carries on without its event stream, and a server
    /// that died would otherwise look connected.
    lost: Arc<watch::Sender<bool>>,
    /// `host:port` of the server, to tell a connection that dropped from a server that is gone.
    address: Arc<str>,
}

/// The transport to `url`, sending `headers` with every request; `lost` is told when the
/// server stops answering at all.
pub(crate) fn transport(
    url: &str,
    headers: &[Header],
    tap: Tap,
    lost: watch::Sender<bool>,
) -> Result<StreamableHttpClientTransport<TapClient>, McpError> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| McpError::Usage(format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(McpError::Usage(
            "only http:// and https:// URLs are supported".to_owned(),
        ));
    }
    // reqwest is built without a TLS crypto provider of its own; ring is the process default.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut defaults = HeaderMap::new();
    for header in headers {
        let name = HeaderName::from_bytes(header.name().as_bytes())
            .map_err(|_| McpError::Usage(format!("{:?}: not a header name", header.name())))?;
        let mut value = HeaderValue::from_str(header.value()).map_err(|_| {
            McpError::Usage(format!(
                "header {}: the value is not valid (not shown)",
                header.name()
            ))
        })?;
        value.set_sensitive(true);
        defaults.append(name, value);
    }
    let inner = reqwest::Client::builder()
        .default_headers(defaults)
        .redirect(same_origin_redirects())
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| McpError::Http(format!("cannot set up HTTP: {}", e.without_url())))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    config.retry_config = Arc::new(FewRetries);
    Ok(StreamableHttpClientTransport::with_client(
        TapClient {
            inner,
            tap,
            lost: Arc::new(lost),
            address: address_of(&parsed).into(),
        },
        config,
    ))
}

fn address_of(url: &reqwest::Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or("localhost"),
        url.port_or_known_default().unwrap_or(80)
    )
}

fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same {
            attempt.stop()
        } else if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}

/// The server's event stream is reopened a few times, then the connection counts as lost:
/// a server that is gone should be reported, not retried for ever.
#[derive(Debug)]
struct FewRetries;

impl SseRetryPolicy for FewRetries {
    fn retry(&self, current_times: usize) -> Option<Duration> {
        (current_times < 3).then_some(Duration::from_millis(500))
    }
}

/// reqwest's errors carry the URL, which may carry a token in its query.
fn quiet(e: HttpError) -> HttpError {
    match e {
        StreamableHttpError::Client(e) => StreamableHttpError::Client(e.without_url()),
        other => other,
    }
}

/// The requests whose answers are shown as the server sent them.
fn answer_is_shown(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(r)
            if matches!(r.request, ClientRequest::ListToolsRequest(_) | ClientRequest::CallToolRequest(_))
    )
}

impl TapClient {
    /// An error of any request. Nobody listening means the server is gone; a connection that
    /// dropped may mean that too, or only that a kept-alive connection was closed as it was
    /// reused, so the address is tried once more, without a request.
    fn noted(&self, e: HttpError) -> HttpError {
        if let StreamableHttpError::Client(inner) = &e {
            if inner.is_connect() {
                self.lost.send_replace(true);
            } else {
                let (address, lost) = (self.address.clone(), self.lost.clone());
                tokio::spawn(async move {
                    let connect = tokio::net::TcpStream::connect(address.as_ref());
                    let answered = tokio::time::timeout(Duration::from_secs(3), connect).await;
                    if !matches!(answered, Ok(Ok(_))) {
                        lost.send_replace(true);
                    }
                });
            }
        }
        quiet(e)
    }

    fn tapped(
        &self,
        stream: BoxStream<'static, Result<Sse, SseError>>,
    ) -> BoxStream<'static, Result<Sse, SseError>> {
        let tap = self.tap.clone();
        stream
            .inspect(move |event| {
                if let Ok(Sse {
                    data: Some(data), ..
                }) = event
                    && let Ok(value) = serde_json::from_str::<Value>(data)
                {
                    tap.observe(&value);
                }
            })
            .boxed()
    }

    fn tap_response(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.tapped(stream), session)
            }
            other => other,
        }
    }

    /// The POST of a request whose answer is kept raw.
    async fn post_raw(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let body = serde_json::to_vec(&message)?;
        let mut request = self
            .inner
            .post(uri.as_ref())
            .header(
                ACCEPT,
                format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
            )
            .header(CONTENT_TYPE, JSON_MIME_TYPE)
            .body(body);
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let had_session = session_id.is_some();
        if let Some(id) = session_id {
            request = request.header(HEADER_SESSION_ID, id.as_ref());
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.noted(HttpError::Client(e)))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && had_session {
            return Err(HttpError::SessionExpired);
        }
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        if !status.is_success() {
            let body = read_limited(response, limits.max_error_response_size.max(ERROR_BODY)).await;
            let text = String::from_utf8_lossy(&body.unwrap_or_default()).into_owned();
            // A JSON-RPC error in an error status is still the server's answer.
            if let Ok(message @ ServerJsonRpcMessage::Error(_)) =
                serde_json::from_str::<ServerJsonRpcMessage>(&text)
            {
                return Ok(StreamableHttpPostResponse::Json(message, session));
            }
            let text: String = text.chars().take(ERROR_BODY).collect();
            return Err(HttpError::UnexpectedServerResponse(Cow::Owned(format!(
                "HTTP {status}{}{text}",
                if text.is_empty() { "" } else { ": " }
            ))));
        }
        match content_type.as_deref() {
            Some(EVENT_STREAM_MIME_TYPE) => {
                let bytes = limited_stream(
                    response,
                    limits.max_sse_event_size.max(limits.max_json_response_size),
                );
                let stream = SseStream::from_bytes_stream(bytes).boxed();
                Ok(StreamableHttpPostResponse::Sse(
                    self.tapped(stream),
                    session,
                ))
            }
            Some(JSON_MIME_TYPE) => {
                let body = read_limited(response, limits.max_json_response_size)
                    .await
                    .map_err(|e| match e.kind() {
                        io::ErrorKind::FileTooLarge => HttpError::ResponseBodyTooLarge {
                            max_size: limits.max_json_response_size,
                        },
                        _ => HttpError::Io(e),
                    })?;
                let value: Value = serde_json::from_slice(&body)?;
                self.tap.observe(&value);
                Ok(StreamableHttpPostResponse::Json(
                    serde_json::from_value(value)?,
                    session,
                ))
            }
            other => Err(HttpError::UnexpectedContentType(other.map(str::to_owned))),
        }
    }
}

/// The body, up to `max` bytes (an error past that).
async fn read_limited(response: reqwest::Response, max: usize) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| io::Error::other(e.without_url()))?;
        if body.len() + chunk.len() > max {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                "response too large",
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The body as a stream that fails once more than `max` bytes came.
fn limited_stream(
    response: reqwest::Response,
    max: usize,
) -> impl futures::Stream<Item = io::Result<bytes::Bytes>> + Send + 'static {
    let mut seen = 0usize;
    response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(|e| io::Error::other(e.without_url()))?;
        seen += chunk.len();
        if seen > max {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                "event stream too large",
            ));
        }
        Ok(chunk)
    })
}

impl StreamableHttpClient for TapClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        if answer_is_shown(&message) {
            return self
                .post_raw(uri, message, session_id, custom_headers, limits)
                .await;
        }
        self.inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await
            .map(|r| self.tap_response(r))
            .map_err(|e| self.noted(e))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
            .map_err(quiet)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
            .map(|s| self.tapped(s))
            .map_err(|e| self.noted(e))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .map(|s| self.tapped(s))
            .map_err(|e| self.noted(e))
    }
}
