/**
 * The scrypt cost every test service hashes passwords at: 14 (16 MiB, ≈40 ms a hash) instead of the
 * production default 17 (128 MiB, ≈0.3–0.6 s), which made sign-ins a third of the suite's time. The
 * default itself is tested where it matters (test/int/security-credentials.int.spec.ts), with the
 * variable unset.
 */
export const TEST_PASSWORD_HASH_COST = '14';
