//! Image files: PNG stills (a minimal encoder: uncompressed deflate blocks, which every
//! decoder reads, so no compression library is needed) and animated GIFs (the `gif` crate,
//! with a fixed 8x8x4 colour cube and ordered dithering instead of a per-frame quantiser).

use std::io::Write;

/// Writes an 8-bit RGB PNG.
pub fn write_png(
    out: &mut impl Write,
    width: usize,
    height: usize,
    rgb: &[u8],
) -> std::io::Result<()> {
    out.write_all(b"\x89PNG\r\n\x1a\n")?;
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&(width as u32).to_be_bytes());
    header.extend_from_slice(&(height as u32).to_be_bytes());
    // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(out, b"IHDR", &header)?;
    // Each scanline starts with filter type 0 (none).
    let mut raw = Vec::with_capacity(height * (1 + 3 * width));
    for row in rgb.chunks_exact(3 * width) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    chunk(out, b"IDAT", &zlib_stored(&raw))?;
    chunk(out, b"IEND", &[])
}

fn chunk(out: &mut impl Write, kind: &[u8; 4], data: &[u8]) -> std::io::Result<()> {
    out.write_all(&(data.len() as u32).to_be_bytes())?;
    out.write_all(kind)?;
    out.write_all(data)?;
    let mut crc = Crc32::new();
    crc.update(kind);
    crc.update(data);
    out.write_all(&crc.finish().to_be_bytes())
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 65_535;
    let mut out = Vec::with_capacity(data.len() + data.len() / MAX_BLOCK * 5 + 16);
    // CMF: deflate with a 32 KiB window; FLG chosen so CMF * 256 + FLG is a multiple of 31.
    out.extend_from_slice(&[0x78, 0x01]);
    let mut blocks = data.chunks(MAX_BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let last = u8::from(blocks.peek().is_none());
        let len = block.len() as u16;
        out.push(last);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 bytes is the longest run whose sums cannot overflow u32 before the modulo.
    for block in data.chunks(5552) {
        for &byte in block {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

struct Crc32 {
    table: [u32; 256],
    value: u32,
}

impl Crc32 {
    fn new() -> Self {
        let mut table = [0u32; 256];
        for (n, entry) in table.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *entry = c;
        }
        Self {
            table,
            value: 0xFFFF_FFFF,
        }
    }

    fn update(&mut self, data: &[u8]) {
        for &byte in data {
            self.value =
                self.table[((self.value ^ u32::from(byte)) & 0xFF) as usize] ^ (self.value >> 8);
        }
    }

    fn finish(&self) -> u32 {
        self.value ^ 0xFFFF_FFFF
    }
}

/// Levels per channel of the fixed palette (8 x 8 x 4 = 256 colours).
const LEVELS: [usize; 3] = [8, 8, 4];

/// The fixed palette, as RGB bytes.
pub fn palette() -> Vec<u8> {
    let mut p = Vec::with_capacity(256 * 3);
    for r in 0..LEVELS[0] {
        for g in 0..LEVELS[1] {
            for b in 0..LEVELS[2] {
                for (v, n) in [(r, LEVELS[0]), (g, LEVELS[1]), (b, LEVELS[2])] {
                    p.push((v * 255 / (n - 1)) as u8);
                }
            }
        }
    }
    p
}

/// 4x4 Bayer thresholds in `(0, 1)`.
const BAYER: [[f64; 4]; 4] = [
    [0.5, 8.5, 2.5, 10.5],
    [12.5, 4.5, 14.5, 6.5],
    [3.5, 11.5, 1.5, 9.5],
    [15.5, 7.5, 13.5, 5.5],
];

/// Palette indices of an RGB image, ordered-dithered to the fixed palette.
pub fn indexed(width: usize, rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .enumerate()
        .map(|(i, px)| {
            let threshold = BAYER[(i / width) % 4][(i % width) % 4] / 16.0;
            let mut index = 0;
            for (c, &n) in LEVELS.iter().enumerate() {
                let scaled = f64::from(px[c]) / 255.0 * (n - 1) as f64;
                let level = (scaled.floor() + f64::from(u8::from(scaled.fract() > threshold)))
                    .min((n - 1) as f64) as usize;
                index = index * n + level;
            }
            index as u8
        })
        .collect()
}

/// An animated GIF being written frame by frame.
pub struct GifWriter<W: Write> {
    encoder: gif::Encoder<W>,
    width: u16,
    height: u16,
    delay_cs: u16,
}

impl<W: Write> GifWriter<W> {
    /// Starts a looping GIF of `width x height` showing each frame `delay_cs` hundredths of
    /// a second.
    pub fn new(
        out: W,
        width: usize,
        height: usize,
        delay_cs: u16,
    ) -> Result<Self, gif::EncodingError> {
        let (w, h) = (width as u16, height as u16);
        let mut encoder = gif::Encoder::new(out, w, h, &palette())?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        Ok(Self {
            encoder,
            width: w,
            height: h,
            delay_cs,
        })
    }

    /// Appends one RGB frame.
    pub fn frame(&mut self, rgb: &[u8]) -> Result<(), gif::EncodingError> {
        let mut frame = gif::Frame {
            width: self.width,
            height: self.height,
            delay: self.delay_cs,
            ..gif::Frame::default()
        };
        frame.buffer = indexed(usize::from(self.width), rgb).into();
        self.encoder.write_frame(&frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_their_reference_values() {
        // Reference values from RFC 1950's Adler-32 and the CRC-32 of "IEND".
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        let mut crc = Crc32::new();
        crc.update(b"IEND");
        assert_eq!(crc.finish(), 0xAE42_6082);
    }

    #[test]
    fn palette_holds_the_corners_of_the_colour_cube_and_flat_colours_map_to_them() {
        let p = palette();
        assert_eq!(p.len(), 768);
        assert_eq!(&p[..3], &[0, 0, 0]);
        assert_eq!(&p[765..], &[255, 255, 255]);
        let white = indexed(2, &[255, 255, 255, 0, 0, 0]);
        assert_eq!(white, vec![255, 0]);
    }
}
