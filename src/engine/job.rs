//! The job record: a msgpack map `{"ID": str, "Data": bin|nil, "Attempt": int64}` written
//! byte for byte as CurlyQ writes it, and read as leniently as CurlyQ reads it. Anything the
//! reference would misread or reject is a [`DecodeError`], never a panic.

use rmpv::Value;

/// One job as stored in `NAME:data`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: String,
    /// `None` is Go's nil slice (msgpack nil); `Some(vec![])` is an empty payload.
    pub data: Option<Vec<u8>>,
    /// How many times the job has failed so far.
    pub attempt: i64,
}

/// Why a stored record cannot be read as a job.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

impl Job {
    pub fn new(id: impl Into<String>, data: Option<Vec<u8>>) -> Self {
        Job {
            id: id.into(),
            data,
            attempt: 0,
        }
    }

    /// The payload, with Go's nil slice read as empty.
    pub fn data_bytes(&self) -> &[u8] {
        self.data.as_deref().unwrap_or_default()
    }

    /// Encodes the record exactly as the reference does: a 3-entry map in the order
    /// ID, Data, Attempt; smallest str/bin headers; Attempt always as the 9-byte int64.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(32 + self.id.len() + self.data_bytes().len());
        self.encode_into(&mut buf);
        buf
    }

    /// [`Job::encode`] appending to `buf`.
    pub fn encode_into(&self, buf: &mut Vec<u8>) {
        encode_record(buf, &self.id, self.data.as_deref(), self.attempt);
    }

    /// Decodes a record the way the reference does: keys in any order, unknown keys ignored,
    /// compact integers, Data as str or bin, or the record as an array `[ID, Data, Attempt]`.
    /// A record without an `ID` entry (the reference would read it as an empty id) is damaged.
    pub fn decode(bytes: &[u8]) -> Result<Job, DecodeError> {
        if let Some(job) = decode_usual(bytes) {
            return Ok(job);
        }
        let mut rd = bytes;
        let value = rmpv::decode::read_value(&mut rd).map_err(|e| match e {
            rmpv::decode::Error::InvalidMarkerRead(_) | rmpv::decode::Error::InvalidDataRead(_)
                if bytes.is_empty() || is_eof(&e) =>
            {
                DecodeError("truncated record (unexpected end of data)".into())
            }
            other => DecodeError(format!("not a msgpack record: {other}")),
        })?;
        // The decoder reads the byte msgpack never uses as nil, which it is not.
        if let Some(at) = unused_marker(bytes) {
            return Err(DecodeError(format!(
                "record has the byte 0xc1 at offset {at}, which msgpack never uses"
            )));
        }
        match value {
            Value::Map(entries) => {
                let mut id = None;
                let mut data = None;
                let mut attempt = 0;
                for (k, v) in entries {
                    match k.as_str() {
                        Some("ID") => id = Some(read_id(v)?),
                        Some("Data") => data = read_data(v)?,
                        Some("Attempt") => attempt = read_attempt(v)?,
                        _ => {}
                    }
                }
                let id = id.ok_or_else(|| DecodeError("record has no \"ID\" entry".into()))?;
                Ok(Job { id, data, attempt })
            }
            Value::Array(items) if items.len() <= 3 => {
                let mut items = items.into_iter();
                let id = items.next().map(read_id).transpose()?.unwrap_or_default();
                let data = items.next().map(read_data).transpose()?.flatten();
                let attempt = items.next().map(read_attempt).transpose()?.unwrap_or(0);
                Ok(Job { id, data, attempt })
            }
            Value::Array(items) => Err(DecodeError(format!(
                "record is an array of {} elements, expected 3",
                items.len()
            ))),
            other => Err(DecodeError(format!(
                "record is a msgpack {}, expected a map",
                kind(&other)
            ))),
        }
    }
}

/// Appends the record of a job to `buf`, as [`Job::encode`] does, from borrowed parts.
pub fn encode_record(buf: &mut Vec<u8>, id: &str, data: Option<&[u8]>, attempt: i64) {
    // Writing into a Vec cannot fail.
    rmp::encode::write_map_len(buf, 3).expect("write to Vec");
    rmp::encode::write_str(buf, "ID").expect("write to Vec");
    rmp::encode::write_str(buf, id).expect("write to Vec");
    rmp::encode::write_str(buf, "Data").expect("write to Vec");
    match data {
        Some(data) => rmp::encode::write_bin(buf, data).expect("write to Vec"),
        None => rmp::encode::write_nil(buf).expect("write to Vec"),
    }
    rmp::encode::write_str(buf, "Attempt").expect("write to Vec");
    rmp::encode::write_i64(buf, attempt).expect("write to Vec");
}

/// The length of the record [`encode_record`] writes for an id of `id_len` bytes and data of
/// `data_len` bytes (None: no data), without writing it.
pub fn record_len(id_len: usize, data_len: Option<usize>) -> usize {
    let str_header = |n: usize| match n {
        0..32 => 1,
        32..256 => 2,
        256..65536 => 3,
        _ => 5,
    };
    let data = match data_len {
        Some(n @ 0..256) => 2 + n,
        Some(n @ 256..65536) => 3 + n,
        Some(n) => 5 + n,
        None => 1,
    };
    // The map, "ID", "Data", "Attempt" and the attempt (always the 9-byte form).
    1 + 3 + str_header(id_len) + id_len + 5 + data + 8 + 9
}

/// The offset of the first 0xc1 byte that stands where a value begins, in the value at the
/// start of `bytes`. None when there is none, or the value ends early (the decoder says so).
fn unused_marker(bytes: &[u8]) -> Option<usize> {
    // A big-endian length of `n` bytes at `at`.
    let len = |at: usize, n: usize| -> Option<usize> {
        let b = bytes.get(at..at + n)?;
        Some(b.iter().fold(0usize, |acc, &x| (acc << 8) | x as usize))
    };
    let mut pos = 0usize;
    // Values still to be read: every value takes at least one byte, so this ends.
    let mut pending = 1usize;
    while pending > 0 {
        let marker = *bytes.get(pos)?;
        pending -= 1;
        let at = pos;
        pos += 1;
        // (bytes of payload after the marker, values nested in it)
        let (payload, nested) = match marker {
            0xc1 => return Some(at),
            0x80..=0x8f => (0, 2 * (marker & 0x0f) as usize),
            0x90..=0x9f => (0, (marker & 0x0f) as usize),
            0xa0..=0xbf => ((marker & 0x1f) as usize, 0),
            0xc4 | 0xd9 => (1 + len(pos, 1)?, 0),
            0xc5 | 0xda => (2 + len(pos, 2)?, 0),
            0xc6 | 0xdb => (4 + len(pos, 4)?, 0),
            0xc7 => (2 + len(pos, 1)?, 0),
            0xc8 => (3 + len(pos, 2)?, 0),
            0xc9 => (5 + len(pos, 4)?, 0),
            0xcc | 0xd0 => (1, 0),
            0xcd | 0xd1 => (2, 0),
            0xca | 0xce | 0xd2 => (4, 0),
            0xcb | 0xcf | 0xd3 => (8, 0),
            0xd4 => (2, 0),
            0xd5 => (3, 0),
            0xd6 => (5, 0),
            0xd7 => (9, 0),
            0xd8 => (17, 0),
            0xdc => (2, len(pos, 2)?),
            0xdd => (4, len(pos, 4)?),
            0xde => (2, 2 * len(pos, 2)?),
            0xdf => (4, 2usize.saturating_mul(len(pos, 4)?)),
            // Fixints, nil, false, true.
            _ => (0, 0),
        };
        pos = pos.saturating_add(payload);
        pending = pending.saturating_add(nested);
    }
    None
}

fn is_eof(e: &rmpv::decode::Error) -> bool {
    match e {
        rmpv::decode::Error::InvalidMarkerRead(io) | rmpv::decode::Error::InvalidDataRead(io) => {
            io.kind() == std::io::ErrorKind::UnexpectedEof
        }
        _ => false,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "bool",
        Value::Integer(_) => "int",
        Value::F32(_) | Value::F64(_) => "float",
        Value::String(_) => "str",
        Value::Binary(_) => "bin",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Ext(..) => "ext",
    }
}

/// The record as CurlyQ and qctl write it (a map of a string "ID", a binary or nil "Data"
/// and an integer "Attempt", in that order, and nothing after it), read without building a
/// msgpack value; None for any other shape, which [`Job::decode`] reads the general way.
fn decode_usual(bytes: &[u8]) -> Option<Job> {
    let (id, data, attempt) = usual_parts(bytes)?;
    Some(Job {
        id: id.to_string(),
        data: data.map(|range| bytes[range].to_vec()),
        attempt,
    })
}

/// The parts of a record of the usual shape (see [`decode_usual`]): its id, where its data
/// is in `bytes` (None: nil), and its Attempt.
fn usual_parts(bytes: &[u8]) -> Option<(&str, Option<std::ops::Range<usize>>, i64)> {
    use rmp::decode;
    let mut rd = bytes;
    if decode::read_map_len(&mut rd).ok()? != 3 {
        return None;
    }
    let (key, rd) = decode::read_str_from_slice(rd).ok()?;
    let (id, rd) = decode::read_str_from_slice(rd).ok()?;
    if key != "ID" {
        return None;
    }
    let (key, mut rd) = decode::read_str_from_slice(rd).ok()?;
    if key != "Data" {
        return None;
    }
    let data = match rd.first()? {
        0xc0 => {
            rd = &rd[1..];
            None
        }
        0xc4..=0xc6 => {
            let len = decode::read_bin_len(&mut rd).ok()? as usize;
            rd.get(..len)?;
            let start = bytes.len() - rd.len();
            rd = &rd[len..];
            Some(start..start + len)
        }
        _ => return None,
    };
    let (key, mut rd) = decode::read_str_from_slice(rd).ok()?;
    if key != "Attempt" {
        return None;
    }
    let attempt: i64 = decode::read_int(&mut rd).ok()?;
    if !rd.is_empty() {
        return None;
    }
    Some((id, data, attempt))
}

/// The data of the record `record` stored under `id`, in the record's own buffer when the
/// record has the usual shape (a 16 MiB payload is not copied); else why the record cannot
/// be used (it does not decode, or names another id), with the record.
pub fn data_of(mut record: Vec<u8>, id: &str) -> Result<Vec<u8>, (String, Vec<u8>)> {
    if let Some((named, range, _)) = usual_parts(&record) {
        if named != id {
            return Err((format!("record names another id {named:?}"), record));
        }
        let range = range.unwrap_or(0..0);
        record.truncate(range.end);
        record.drain(..range.start);
        return Ok(record);
    }
    match Job::decode(&record) {
        Ok(job) if job.id == id => Ok(job.data.unwrap_or_default()),
        Ok(job) => Err((format!("record names another id {:?}", job.id), record)),
        Err(e) => Err((e.to_string(), record)),
    }
}

fn read_id(v: Value) -> Result<String, DecodeError> {
    match v {
        Value::String(s) => s
            .into_str()
            .ok_or_else(|| DecodeError("ID is not valid UTF-8".into())),
        Value::Binary(b) => {
            String::from_utf8(b).map_err(|_| DecodeError("ID is not valid UTF-8".into()))
        }
        Value::Nil => Ok(String::new()),
        other => Err(DecodeError(format!("ID is a msgpack {}", kind(&other)))),
    }
}

fn read_data(v: Value) -> Result<Option<Vec<u8>>, DecodeError> {
    match v {
        Value::Binary(b) => Ok(Some(b)),
        Value::String(s) => Ok(Some(s.into_bytes())),
        Value::Nil => Ok(None),
        other => Err(DecodeError(format!("Data is a msgpack {}", kind(&other)))),
    }
}

fn read_attempt(v: Value) -> Result<i64, DecodeError> {
    match v {
        Value::Integer(i) => i
            .as_i64()
            .ok_or_else(|| DecodeError(format!("Attempt {i} does not fit in int64"))),
        Value::Nil => Ok(0),
        other => Err(DecodeError(format!(
            "Attempt is a msgpack {}, expected an integer",
            kind(&other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use serde_json::Value as Json;

    fn golden(name: &str) -> Vec<Json> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/");
        let text = std::fs::read_to_string(format!("{path}{name}"))
            .unwrap_or_else(|e| panic!("cannot read golden file {path}{name}: {e}"));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("golden line is JSON"))
            .collect()
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn b64(v: &Json) -> Option<Vec<u8>> {
        v.as_str().map(|s| {
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .expect("golden base64")
        })
    }

    #[test]
    fn record_len_is_the_length_of_the_record_written() {
        for id_len in [0, 1, 31, 32, 36, 255, 256, 65535, 65536] {
            for data_len in [
                None,
                Some(0),
                Some(255),
                Some(256),
                Some(65535),
                Some(65536),
            ] {
                let id = "i".repeat(id_len);
                let data = data_len.map(|n| vec![7u8; n]);
                let mut buf = Vec::new();
                encode_record(&mut buf, &id, data.as_deref(), 3);
                assert_eq!(
                    record_len(id_len, data_len),
                    buf.len(),
                    "{id_len} {data_len:?}"
                );
            }
        }
    }

    #[test]
    fn encodes_every_golden_vector_byte_for_byte() {
        let cases = golden("encode.jsonl");
        assert!(cases.len() >= 10, "golden encode file has too few cases");
        for case in cases {
            let job = Job {
                id: case["id"].as_str().unwrap().to_string(),
                data: b64(&case["data_b64"]),
                attempt: case["attempt"].as_i64().unwrap(),
            };
            assert_eq!(
                job.encode(),
                hex(case["hex"].as_str().unwrap()),
                "record for id {:?}",
                job.id
            );
            assert_eq!(Job::decode(&job.encode()).unwrap(), job, "round trip");
        }
    }

    #[test]
    fn decodes_golden_cases_like_the_reference_and_rejects_the_rest() {
        let cases = golden("decode.jsonl");
        assert!(cases.len() >= 10, "golden decode file has too few cases");
        for case in cases {
            let name = case["case"].as_str().unwrap();
            let got = Job::decode(&hex(case["hex"].as_str().unwrap()));
            let want = &case["reference_result"];
            let reference_misreads =
                want.get("id") == Some(&Json::String(String::new())) && want["data_b64"].is_null();
            if want.get("error").is_some() || reference_misreads {
                let err = got.expect_err(name);
                assert!(!err.0.is_empty(), "{name}: reason is empty");
            } else {
                let job = got.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(job.id, want["id"].as_str().unwrap(), "{name}");
                assert_eq!(job.data, b64(&want["data_b64"]), "{name}");
                assert_eq!(job.attempt, want["attempt"].as_i64().unwrap(), "{name}");
            }
        }
    }

    #[test]
    fn data_of_gives_the_data_in_the_records_own_buffer_or_why_not() {
        let data = vec![0xc1u8; 70_000];
        let record = Job::new("a-1", Some(data.clone())).encode();
        let start = record.as_ptr();
        let got = data_of(record, "a-1").expect("a usual record");
        assert_eq!(got, data);
        assert_eq!(got.as_ptr(), start, "the data was copied");
        assert_eq!(
            data_of(Job::new("a-1", None).encode(), "a-1"),
            Ok(Vec::new())
        );
        assert_eq!(
            data_of(Job::new("a-1", Some(Vec::new())).encode(), "a-1"),
            Ok(Vec::new())
        );
        // Another shape, read the general way: an array [ID, Data, Attempt].
        let mut array = Vec::new();
        rmp::encode::write_array_len(&mut array, 3).unwrap();
        rmp::encode::write_str(&mut array, "a-1").unwrap();
        rmp::encode::write_bin(&mut array, b"xix").unwrap();
        rmp::encode::write_i64(&mut array, 2).unwrap();
        assert_eq!(data_of(array, "a-1"), Ok(b"xix".to_vec()));
        let other = Job::new("b", Some(b"x".to_vec())).encode();
        let (why, stored) = data_of(other.clone(), "a-1").expect_err("another id");
        assert_eq!(why, "record names another id \"b\"");
        assert_eq!(stored, other);
        let (why, stored) = data_of(b"\xff\xfe".to_vec(), "a-1").expect_err("no record");
        assert!(!why.is_empty());
        assert_eq!(stored, b"\xff\xfe");
    }

    #[test]
    fn the_usual_record_is_read_the_same_either_way() {
        let records = [
            Job::new("a-1", Some(b"hello".to_vec())).encode(),
            Job::new("", None).encode(),
            Job {
                attempt: 7,
                ..Job::new("\u{e9}", Some(vec![0xc1; 300]))
            }
            .encode(),
            Job {
                attempt: -2,
                ..Job::new("big", Some(vec![0; 70_000]))
            }
            .encode(),
        ];
        for record in records {
            let usual = decode_usual(&record).expect("a record qctl writes is the usual shape");
            let mut general = record.clone();
            // The same record with a fourth, unknown entry is read the general way.
            general[0] = 0x84;
            rmp::encode::write_str(&mut general, "X").unwrap();
            rmp::encode::write_nil(&mut general).unwrap();
            assert!(decode_usual(&general).is_none());
            assert_eq!(Job::decode(&general).unwrap(), usual);
        }
        // Anything after the record, or a record cut short, is not the usual shape.
        let mut longer = Job::new("a", None).encode();
        longer.push(0);
        assert!(decode_usual(&longer).is_none());
        let whole = Job::new("a", Some(b"xyz".to_vec())).encode();
        assert!(decode_usual(&whole[..whole.len() - 2]).is_none());
    }

    #[test]
    fn the_byte_msgpack_never_uses_is_named_wherever_a_value_begins() {
        let good = Job::new("id", Some(b"\xc1 in data is fine".to_vec())).encode();
        assert!(Job::decode(&good).is_ok());
        let mut in_data = Vec::new();
        rmp::encode::write_map_len(&mut in_data, 2).unwrap();
        rmp::encode::write_str(&mut in_data, "ID").unwrap();
        rmp::encode::write_str(&mut in_data, "x").unwrap();
        rmp::encode::write_str(&mut in_data, "Data").unwrap();
        in_data.push(0xc1);
        for (bytes, at) in [(&b"\xc1\x00garbage"[..], 0), (&in_data[..], 11)] {
            let err = Job::decode(bytes).expect_err("0xc1 is no msgpack value");
            assert_eq!(
                err.0,
                format!("record has the byte 0xc1 at offset {at}, which msgpack never uses")
            );
        }
    }

    #[test]
    fn damaged_records_never_panic() {
        let good = Job::new("id", Some(b"payload".to_vec())).encode();
        for cut in 0..good.len() {
            let _ = Job::decode(&good[..cut]);
        }
        for byte in 0..=255u8 {
            let _ = Job::decode(&[byte]);
            let _ = Job::decode(&[0x83, byte, byte, byte]);
        }
        assert!(Job::decode(b"").is_err());
        assert!(Job::decode(&[0x94, 1, 2, 3, 4]).is_err());
    }
}
