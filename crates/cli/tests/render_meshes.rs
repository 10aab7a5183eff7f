//! `stiction render` draws convex hulls, triangle meshes and heightfields as their own
//! triangles (not as bounding boxes): seen from straight above, a red tetrahedron whose
//! outline is a right triangle fills that triangle and leaves the other half of its
//! bounding square to the sky; a green heightfield ramp fills its rectangle.

mod common;

use std::path::Path;

use common::{stiction, success};

/// The RGB pixels of a PNG written by `stiction render` (stored deflate blocks, filter 0).
fn read_png(path: &Path) -> (usize, usize, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (mut width, mut height, mut zlib) = (0, 0, Vec::new());
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(&data[8..10], &[8, 2], "8-bit RGB");
            }
            b"IDAT" => zlib.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    // zlib header, then stored blocks: final flag, LEN, NLEN, bytes.
    let mut raw = Vec::new();
    let mut at = 2;
    loop {
        let last = zlib[at] & 1 == 1;
        assert_eq!(zlib[at] & 6, 0, "stored blocks only");
        let len = u16::from_le_bytes([zlib[at + 1], zlib[at + 2]]) as usize;
        raw.extend_from_slice(&zlib[at + 5..at + 5 + len]);
        at += 5 + len;
        if last {
            break;
        }
    }
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in raw.chunks_exact(1 + 3 * width) {
        assert_eq!(row[0], 0, "filter type 0");
        rgb.extend_from_slice(&row[1..]);
    }
    assert_eq!(rgb.len(), width * height * 3);
    (width, height, rgb)
}

/// The pixel where the world point `(x, y, 0)` appears, for the camera 5 m straight above
/// the origin with a vertical field of view of 40 degrees: image right is +x, up is +y.
fn pixel_of(x: f64, y: f64, width: usize, height: usize) -> (usize, usize) {
    let focal = 0.5 * height as f64 / (20f64.to_radians()).tan();
    let px = 0.5 * width as f64 + focal * x / 5.0;
    let py = 0.5 * height as f64 - focal * y / 5.0;
    (px as usize, py as usize)
}

fn color_at(rgb: &[u8], width: usize, (x, y): (usize, usize)) -> [u8; 3] {
    let i = 3 * (y * width + x);
    [rgb[i], rgb[i + 1], rgb[i + 2]]
}

fn is_red(c: [u8; 3]) -> bool {
    c[0] > 60 && c[1] < 30 && c[2] < 30
}

fn is_green(c: [u8; 3]) -> bool {
    c[1] > 60 && c[0] < 30 && c[2] < 30
}

const SCENE: &str = r#"
steps = 1

[[bodies]]
name = "tetrahedron"
kind = "static"
color = [1.0, 0.0, 0.0]
shapes = [{ type = "convex", points = [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, -1.0, 0.5]] }]

[[bodies]]
name = "ramp"
kind = "static"
position = [2.0, 0.0, 0.0]
color = [0.0, 1.0, 0.0]
shapes = [{ type = "heightfield", heights = [[0.0, 0.0, 0.0], [0.2, 0.2, 0.2]], size = [0.8, 1.6] }]

[render]
eye = [0.0, 0.0, 5.0]
target = [0.0, 0.0, 0.0]
fov = 40.0
width = 320
height = 240
frames = 1
"#;

#[test]
fn hulls_and_heightfields_are_drawn_as_their_triangles() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hull.toml");
    std::fs::write(&file, SCENE).unwrap();
    let out = dir.path().join("out");
    success(
        stiction()
            .args(["render", "-q", "--out"])
            .arg(&out)
            .arg(&file),
    );
    let (width, height, rgb) = read_png(&out.join("first.png"));
    assert_eq!((width, height), (320, 240));
    let at = |x: f64, y: f64| color_at(&rgb, width, pixel_of(x, y, width, height));

    // Inside the tetrahedron's outline (the right triangle (-1,-1), (1,-1), (-1,1)).
    for (x, y) in [(-0.5, -0.5), (-0.8, 0.5), (0.5, -0.8), (-0.2, -0.2)] {
        assert!(is_red(at(x, y)), "({x}, {y}): {:?}", at(x, y));
    }
    // Inside its bounding square but outside the triangle: sky, not a box.
    for (x, y) in [(0.6, 0.6), (0.9, 0.2), (0.2, 0.9)] {
        let c = at(x, y);
        assert!(!is_red(c), "({x}, {y}) is drawn: {c:?}");
        assert!(c[2] > 150, "({x}, {y}) is not the sky: {c:?}");
    }
    // The heightfield fills its 0.8 x 1.6 m rectangle around (2, 0).
    for (x, y) in [(2.0, 0.0), (1.75, 0.6), (2.25, -0.6)] {
        assert!(is_green(at(x, y)), "({x}, {y}): {:?}", at(x, y));
    }
    for (x, y) in [(2.0, 0.95), (1.45, 0.0)] {
        assert!(!is_green(at(x, y)), "({x}, {y}): {:?}", at(x, y));
    }
    let red = rgb
        .chunks_exact(3)
        .filter(|c| is_red([c[0], c[1], c[2]]))
        .count();
    // The triangle's area, 2 m^2, at 55 pixels per metre (plus its apex's perspective).
    let focal = 0.5 * height as f64 / (20f64.to_radians()).tan();
    let expected = 2.0 * (focal / 5.0).powi(2);
    assert!(
        red as f64 > 0.9 * expected && (red as f64) < 1.3 * expected,
        "{red} red pixels, about {expected:.0} expected"
    );
}
