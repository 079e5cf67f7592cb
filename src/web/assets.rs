//! The page's style sheet and script, built into the binary and served under /assets/ with
//! a digest of their content in the name: a browser may keep them for good, and a new qctl
//! serves new names; and the icon a browser asks for at /favicon.ico. Nothing else is
//! fetched by a page: no CDN, no web font.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::header::{self, HeaderValue};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// One asset: its file name, its media type and its bytes.
struct Asset {
    stem: &'static str,
    extension: &'static str,
    media_type: &'static str,
    body: &'static [u8],
}

const ASSETS: [Asset; 2] = [
    Asset {
        stem: "app",
        extension: "css",
        media_type: "text/css; charset=utf-8",
        body: include_bytes!("assets/app.css"),
    },
    Asset {
        stem: "app",
        extension: "js",
        media_type: "text/javascript; charset=utf-8",
        body: include_bytes!("assets/app.js"),
    },
];

/// Each asset's served name: `app.<digest>.css`.
static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|a| {
            let digest = ring::digest::digest(&ring::digest::SHA256, a.body);
            let short: String = digest.as_ref()[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            format!("{}.{short}.{}", a.stem, a.extension)
        })
        .collect()
});

/// The path of the asset with this stem and extension (`app`, `css`): `/assets/app.<digest>.css`.
pub fn path(stem: &str, extension: &str) -> String {
    ASSETS
        .iter()
        .zip(NAMES.iter())
        .find(|(a, _)| a.stem == stem && a.extension == extension)
        .map(|(_, name)| format!("/assets/{name}"))
        .unwrap_or_default()
}

/// `GET /assets/{name}`: the asset of that name, kept by the browser for a year; any other
/// name (an older qctl's) is not found.
pub async fn serve(Path(name): Path<String>) -> Response {
    match ASSETS.iter().zip(NAMES.iter()).find(|(_, n)| **n == name) {
        Some((asset, _)) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(asset.media_type),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=31536000, immutable"),
                ),
            ],
            asset.body,
        )
            .into_response(),
        None => super::guard::plain(StatusCode::NOT_FOUND, "no such asset\n"),
    }
}

/// The icon of the tab (three bars), in SVG.
const ICON: &[u8] = include_bytes!("assets/icon.svg");

/// `GET /favicon.ico`: the icon a browser asks for with every page (without it each page
/// logs a 404 in the browser's console).
pub async fn favicon() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/svg+xml"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400"),
            ),
        ],
        ICON,
    )
        .into_response()
}
