// Expensive O(n) checks run only when STORE_INVARIANTS=1 (tests and the simulator turn it on).
// They never change the code path: they only read and assert.

export const invariants = {
  enabled: process.env['STORE_INVARIANTS'] === '1',
};
