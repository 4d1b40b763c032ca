import '../shared/ui/styles.css';
import { createRoot } from 'react-dom/client';
import { getConfig } from '../shared/config/env.ts';
import { configureStorage } from '../shared/storage/storage.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Providers } from './providers.tsx';
import { Router } from './router.tsx';

const root = createRoot(document.getElementById('root')!);

try {
  const config = getConfig();
  configureStorage({ cookieDomain: config.cookieDomain });
  root.render(
    <Providers>
      <Router />
    </Providers>,
  );
} catch (error) {
  console.error(error);
  root.render(<ErrorView message={error instanceof Error ? error.message : String(error)} mode="retry" />);
}
