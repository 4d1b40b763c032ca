import { configure } from '@testing-library/react';

// The whole suite runs on two cores next to the database-backed suites; Testing Library's default
// 1 s for `findBy…` and `waitFor` is shorter than a loaded machine needs to commit a React update.
// Five seconds is still far under the test time-out, so a screen that never appears still fails.
configure({ asyncUtilTimeout: 5_000 });
