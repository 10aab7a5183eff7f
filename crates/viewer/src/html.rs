//! The page: the committed JavaScript bundle, the self-contained HTML file and the pages the
//! server sends.

use std::io;
use std::path::Path;

use crate::scene::{SceneError, ViewerScene};

/// The viewer's JavaScript bundle (three.js and `viewer/src/*.js`, built by
/// `viewer/build.sh` into `crates/viewer/assets/viewer.js`).
pub const BUNDLE: &str = include_str!("../assets/viewer.js");

/// The id of the `<script type="application/json">` element holding an inline scene.
pub(crate) const DATA_ID: &str = "stiction-scene";

/// One self-contained HTML page: `scene` (validated) as inline JSON and the bundle inline.
/// It opens from a `file://` URL without a server or network.
pub fn html_page(scene: &ViewerScene) -> Result<String, SceneError> {
    scene.validate()?;
    let json = script_safe_json(&scene.to_json());
    let bundle = script_safe_js(BUNDLE);
    let mut page = String::with_capacity(json.len() + bundle.len() + 1024);
    page.push_str(&head(&scene.title));
    page.push_str(&format!(
        "<script type=\"application/json\" id=\"{DATA_ID}\">"
    ));
    page.push_str(&json);
    page.push_str("</script>\n<script>\n");
    page.push_str(&bundle);
    page.push_str("\n</script>\n</body>\n</html>\n");
    Ok(page)
}

/// Writes [`html_page`] of `scene` to `out` (creating its directory). A scene that fails
/// [`ViewerScene::validate`] is refused with [`io::ErrorKind::InvalidData`].
pub fn write_html(scene: &ViewerScene, out: &Path) -> io::Result<()> {
    let page = html_page(scene).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    if let Some(dir) = out.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    std::fs::write(out, page)
}

/// The page the server sends: the bundle and the data come from its routes.
pub(crate) fn served_page(title: &str, live: bool) -> String {
    let mut page = head(title);
    page.push_str(&format!(
        "<script>window.STICTION_CONFIG = {{\"source\": \"server\", \"live\": {live}}};</script>\n"
    ));
    page.push_str("<script src=\"/viewer.js\"></script>\n</body>\n</html>\n");
    page
}

fn head(title: &str) -> String {
    let title = if title.is_empty() {
        "stiction viewer".to_string()
    } else {
        format!("{} - stiction viewer", escape_html(title))
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n</head>\n<body>\n"
    )
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON that cannot end its `<script>` element: `<` only occurs inside JSON strings, where
/// `\u003c` means the same.
pub(crate) fn script_safe_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// The bundle with any `</script` written `<\/script` (the build checks there is none; esbuild
/// escapes it inside strings).
fn script_safe_js(js: &str) -> std::borrow::Cow<'_, str> {
    if js.to_ascii_lowercase().contains("</script") {
        let mut out = String::with_capacity(js.len());
        let lower = js.to_ascii_lowercase();
        let mut last = 0;
        for (i, _) in lower.match_indices("</script") {
            out.push_str(&js[last..i]);
            out.push_str("<\\/");
            last = i + 2;
        }
        out.push_str(&js[last..]);
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(js)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_scripts_cannot_close_the_element() {
        let json = r#"{"title":"</script><script>alert(1)</script>"}"#;
        let safe = script_safe_json(json);
        assert!(!safe.contains('<'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["title"], "</script><script>alert(1)</script>");
        let js = "var a = '</SCRIPT>'; var b = \"</script\";";
        let safe = script_safe_js(js);
        assert!(!safe.to_ascii_lowercase().contains("</script"));
        assert_eq!(safe, "var a = '<\\/SCRIPT>'; var b = \"<\\/script\";");
        assert!(!BUNDLE.to_ascii_lowercase().contains("</script"));
    }

    #[test]
    fn titles_are_escaped() {
        assert!(head("a<b>&\"").contains("<title>a&lt;b&gt;&amp;&quot; - stiction viewer</title>"));
    }
}
