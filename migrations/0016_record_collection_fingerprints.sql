-- The fingerprint of a collection's documents (SHA-256 over each document's digest in docno
-- byte order, as every BM25 index records it), kept once it has been computed, so that an
-- on-disk index is checked against the collection without reading every document again.
-- documents_version counts the writes into the collection's documents: each write clears
-- the fingerprint and bumps the version, and a fingerprint computed from documents read
-- while the version was v is kept only if the version is still v.
ALTER TABLE collections
  ADD COLUMN documents_fingerprint text,
  ADD COLUMN documents_version integer NOT NULL DEFAULT 0;
