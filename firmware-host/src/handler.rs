//! What every JSON handler uses: its result type, running blocking work off the async
//! threads, and reading a JSON body within its size and time limits. Apart from `http` so
//! that the handler modules (`account_api`, `ws`) and the router do not import each other.

use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{Request, Response};

use crate::api_error::{ApiError, Body, MAX_BODY};

pub(crate) type ApiResult = Result<Response<Body>, ApiError>;

/// Runs blocking store or hashing work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal("blocking task failed", e))
}

/// Reads a file body (an upload) of at most `max` bytes, all of it within `limit`.
pub(crate) async fn read_bytes(
    req: Request<Incoming>,
    max: usize,
    limit: std::time::Duration,
) -> Result<bytes::Bytes, ApiError> {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max as u64) {
        return Err(ApiError::UploadTooLarge(max));
    }
    let collected = tokio::time::timeout(limit, Limited::new(req.into_body(), max).collect())
        .await
        .map_err(|_| ApiError::BodyTimeout(limit.as_secs()))?;
    Ok(collected
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                ApiError::UploadTooLarge(max)
            } else {
                ApiError::BadBody(e.to_string())
            }
        })?
        .to_bytes())
}

/// Reads a JSON body of at most [`MAX_BODY`] bytes, all of it within `limit` (a body trickled
/// byte by byte must not hold a connection for ever, as the header timeout ensures for
/// headers).
pub(crate) async fn read_json<T: serde::de::DeserializeOwned>(
    req: Request<Incoming>,
    limit: std::time::Duration,
) -> Result<T, ApiError> {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY as u64) {
        return Err(ApiError::BodyTooLarge);
    }
    let collected = tokio::time::timeout(limit, Limited::new(req.into_body(), MAX_BODY).collect())
        .await
        .map_err(|_| ApiError::BodyTimeout(limit.as_secs()))?;
    let body = collected
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                ApiError::BodyTooLarge
            } else {
                ApiError::BadBody(e.to_string())
            }
        })?
        .to_bytes();
    serde_json::from_slice(&body).map_err(|e| ApiError::BadJson(e.to_string()))
}
