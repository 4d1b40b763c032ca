import { configure } from '@testing-library/react';

// The whole suite runs on two cores next to the database-backed suites; Testing Library's default
// 1 s for `findBy…` and `waitFor` is shorter than a loaded machine needs to commit a React update.
// Fifteen seconds (five was not enough for the seven-step onboarding test in a fresh-clone run with
// three stages side by side) is still half the test time-out, so a screen that never appears fails.
configure({ asyncUtilTimeout: 15_000 });
