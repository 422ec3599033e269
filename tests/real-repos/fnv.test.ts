import { describeRealRepo } from './sessions.js';

// A Rust crate with no dependencies, from crates.io (the digest is the one its index gives); its repository ignores
// `target/` and `Cargo.lock`. Gates: `cargo build --all-targets` and `cargo test`.
describeRealRepo({
  project: {
    id: 'fnv-1.0.7',
    url: 'https://static.crates.io/crates/fnv/fnv-1.0.7.crate',
    digest: 'sha256-3f9eec918d3f24069decb9af1554cad7c880e2da24a9afd88aca000531ab82c1',
    extraFiles: { '.gitignore': '/target\nCargo.lock\n' },
  },
  file: 'lib.rs',
  correct: [
    { search: '    /// Create an FNV hasher starting', replace: '    /// Creates an FNV hasher starting' },
    { search: '            hash = hash ^ (*byte as u64);', replace: '            hash ^= *byte as u64;' },
    {
      search: '    pub fn with_key(key: u64) -> FnvHasher {\n        FnvHasher(key)',
      replace: '    pub fn with_key(key: u64) -> FnvHasher {\n        Self(key)',
    },
  ],
  bug: {
    search: '            hash = hash.wrapping_mul(0x100000001b3);',
    replace: '            hash = hash.wrapping_mul(0x100000001b4);',
    newFailure: 'test::basic_tests',
  },
  failingBefore: [],
  gates: ['build', 'tests'],
  timeoutMs: 600_000,
});
