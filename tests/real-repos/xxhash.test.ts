import { describeRealRepo } from './sessions.js';

// A Go module with no dependencies, from the Go module proxy (the digest is the zip's sha256 as first fetched). Its
// `dynamic/` package builds a Go plugin in its test (75 s here), so its user runs the package's own tests:
// `go test .` in codeloop.json. Gates: `go vet ./...` and the tests.
describeRealRepo({
  project: {
    id: 'xxhash-2.3.0',
    url: 'https://proxy.golang.org/github.com/cespare/xxhash/v2/@v/v2.3.0.zip',
    digest: 'sha256-145a26cdc7c49db566017b807c4989ee7f7ddeb569423e9cb99f995fac3621d3',
    zip: { folder: 'github.com/cespare/xxhash/v2@v2.3.0' },
  },
  config: { test: 'go test .' },
  file: 'xxhash.go',
  correct: [
    { search: '// Size always returns 8 bytes.', replace: '// Size always returns 8 bytes: a 64-bit hash.' },
    { search: '// BlockSize always returns 32 bytes.', replace: '// BlockSize always returns 32 bytes, one stripe.' },
    {
      search: 'func u64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }',
      replace: 'func u64(b []byte) uint64 { return binary.LittleEndian.Uint64(b[:8]) }',
    },
  ],
  bug: { search: '\td.v4 = seed - prime1', replace: '\td.v4 = seed + prime1', newFailure: 'TestAll' },
  failingBefore: [],
  gates: ['vet', 'tests'],
  timeoutMs: 600_000,
});
