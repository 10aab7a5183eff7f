//! A small HTTP/1.1 reader and writer: one request per connection, bounded in size and time.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Largest request line plus headers, bytes.
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// Largest request body, bytes.
pub(crate) const MAX_BODY: usize = 64 * 1024;
/// Longest a client may take to send its request.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// A parsed request.
#[derive(Debug)]
pub(crate) struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The `Host` header, if any.
    pub host: Option<String>,
    pub body: Vec<u8>,
}

/// Why a request was not read: the status to answer with, or nothing (the client left).
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Answer with this status and close.
    Status(u16),
    /// The connection closed or timed out: answer nothing.
    Gone,
}

/// Reads one request from `stream` within [`REQUEST_TIMEOUT`].
pub(crate) fn read_request(stream: &mut TcpStream) -> Result<Request, ReadError> {
    let start = Instant::now();
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return Err(ReadError::Status(431));
        }
        let n = read_some(stream, &mut chunk, start)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    if head_end > MAX_HEAD {
        return Err(ReadError::Status(431));
    }
    let head = std::str::from_utf8(&buf[..head_end]).map_err(|_| ReadError::Status(400))?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Status(400));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0")
        || method.is_empty()
        || !method.bytes().all(|b| b.is_ascii_uppercase())
        || !target.starts_with('/')
        || !target.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(ReadError::Status(400));
    }
    let mut host = None;
    let mut content_length = 0usize;
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Status(400));
        };
        if name.is_empty() || name.bytes().any(|b| !b.is_ascii_graphic()) {
            return Err(ReadError::Status(400));
        }
        let value = value.trim();
        if name.eq_ignore_ascii_case("host") {
            host = Some(value.to_string());
        } else if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse().map_err(|_| ReadError::Status(400))?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(ReadError::Status(501));
        }
    }
    if content_length > MAX_BODY {
        return Err(ReadError::Status(413));
    }
    let mut body = buf[head_end..].to_vec();
    while body.len() < content_length {
        let n = read_some(stream, &mut chunk, start)?;
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(content_length);
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    Ok(Request {
        method: method.to_string(),
        path,
        host,
        body,
    })
}

fn read_some(stream: &mut TcpStream, chunk: &mut [u8], start: Instant) -> Result<usize, ReadError> {
    let left = REQUEST_TIMEOUT
        .checked_sub(start.elapsed())
        .filter(|d| !d.is_zero())
        .ok_or(ReadError::Gone)?;
    stream
        .set_read_timeout(Some(left))
        .map_err(|_| ReadError::Gone)?;
    match stream.read(chunk) {
        Ok(0) | Err(_) => Err(ReadError::Gone),
        Ok(n) => Ok(n),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The reason phrase of the statuses this server sends.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// A response.
pub(crate) struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub allow: Option<&'static str>,
}

impl Response {
    pub(crate) fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            content_type,
            body: body.into(),
            allow: None,
        }
    }

    /// A plain-text error page.
    pub(crate) fn error(status: u16) -> Self {
        Self::new(
            status,
            "text/plain; charset=utf-8",
            format!("{status} {}\n", reason(status)),
        )
    }

    /// Writes the response (without the body for `HEAD`) and ends the connection.
    pub(crate) fn write(&self, stream: &mut TcpStream, head_only: bool) -> io::Result<()> {
        stream.set_write_timeout(Some(Duration::from_secs(10)))?;
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len()
        );
        if let Some(allow) = self.allow {
            head.push_str(&format!("Allow: {allow}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        if !head_only {
            stream.write_all(&self.body)?;
        }
        stream.flush()
    }
}
