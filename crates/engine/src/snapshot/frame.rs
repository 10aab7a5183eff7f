//! The envelope around a snapshot's payload: a fixed header that identifies the file, says
//! which format version wrote it, how long the payload is and what its checksum is, so a
//! damaged or truncated file is recognised before any of it is decoded.
//!
//! ```text
//! offset  size  content
//!      0    17  magic, the ASCII bytes "stiction-snapshot"
//!     17     4  format version, u32 little-endian (currently 1)
//!     21     8  payload length in bytes, u64 little-endian
//!     29     8  FNV-1a 64-bit hash of the payload, u64 little-endian
//!     37     n  payload (CBOR, see the module `snapshot`)
//! ```

use crate::error::SnapshotError;
use std::io::{Read, Write};

/// The first bytes of every snapshot.
pub(crate) const MAGIC: &[u8; 17] = b"stiction-snapshot";
/// The format version this build writes and the only one it reads.
pub(crate) const FORMAT_VERSION: u32 = 1;
/// Bytes before the payload.
pub(crate) const HEADER_LEN: usize = MAGIC.len() + 4 + 8 + 8;

/// FNV-1a, 64-bit: simple, fast, and any single changed byte changes the hash (it is not a
/// defence against deliberate tampering, only against damage).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// Writes the header for `payload`, then the payload.
pub(crate) fn write_frame(mut writer: impl Write, payload: &[u8]) -> Result<(), SnapshotError> {
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    header.extend_from_slice(&fnv1a64(payload).to_le_bytes());
    writer.write_all(&header)?;
    writer.write_all(payload)?;
    writer.flush()?;
    Ok(())
}

/// Reads everything from `reader` and returns the checked payload.
pub(crate) fn read_frame(mut reader: impl Read) -> Result<Vec<u8>, SnapshotError> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    let payload = check_frame(&bytes)?;
    Ok(payload.to_vec())
}

/// Checks the header of `bytes` against the rest and returns the payload: the magic first
/// (is it a snapshot at all?), then the version (can we read it?), then the length (is it
/// all there?), then the checksum (is it intact?).
pub(crate) fn check_frame(bytes: &[u8]) -> Result<&[u8], SnapshotError> {
    let found = bytes.len() as u64;
    let magic_part = &bytes[..bytes.len().min(MAGIC.len())];
    if magic_part != &MAGIC[..magic_part.len()] {
        return Err(SnapshotError::BadMagic);
    }
    if bytes.len() < HEADER_LEN {
        return Err(SnapshotError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    let field = |offset: usize, len: usize| &bytes[offset..offset + len];
    let version = u32::from_le_bytes(field(17, 4).try_into().unwrap_or_default());
    if version != FORMAT_VERSION {
        return Err(SnapshotError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let length = u64::from_le_bytes(field(21, 8).try_into().unwrap_or_default());
    let stored = u64::from_le_bytes(field(29, 8).try_into().unwrap_or_default());
    let expected = length.saturating_add(HEADER_LEN as u64);
    if found < expected {
        return Err(SnapshotError::Truncated { expected, found });
    }
    if found > expected {
        return Err(SnapshotError::TrailingBytes {
            extra: found - expected,
        });
    }
    let payload = &bytes[HEADER_LEN..];
    let computed = fnv1a64(payload);
    if computed != stored {
        return Err(SnapshotError::ChecksumMismatch { stored, computed });
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // From the FNV reference test suite (Fowler, Noll, Vo).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_frame_reads_back_its_payload_and_every_damage_is_named() {
        let mut bytes = Vec::new();
        write_frame(&mut bytes, b"payload").unwrap();
        assert_eq!(bytes.len(), HEADER_LEN + 7);
        assert_eq!(check_frame(&bytes).unwrap(), b"payload");

        assert!(matches!(
            check_frame(&bytes[..HEADER_LEN + 3]),
            Err(SnapshotError::Truncated {
                expected: 44,
                found: 40
            })
        ));
        assert!(matches!(
            check_frame(&bytes[..5]),
            Err(SnapshotError::Truncated { .. })
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            check_frame(&longer),
            Err(SnapshotError::TrailingBytes { extra: 1 })
        ));
        let mut flipped = bytes.clone();
        flipped[HEADER_LEN + 2] ^= 0x10;
        assert!(matches!(
            check_frame(&flipped),
            Err(SnapshotError::ChecksumMismatch { .. })
        ));
        let mut future = bytes.clone();
        future[17] = 2;
        assert!(matches!(
            check_frame(&future),
            Err(SnapshotError::UnsupportedVersion {
                found: 2,
                supported: 1
            })
        ));
        assert!(matches!(
            check_frame(b"PK\x03\x04 not a snapshot at all, but long enough"),
            Err(SnapshotError::BadMagic)
        ));
    }
}
