import type { ErrorInfo, ReactNode } from 'react';
import { Component } from 'react';
import { getErrorMessage } from '../shared/errors/get-error-message.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { ToastRegion } from '../shared/ui/toast-region.tsx';

class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Unhandled error', getErrorMessage(error), info.componentStack);
  }

  override render() {
    if (this.state.error) return <ErrorView message={getErrorMessage(this.state.error)} mode="retry" />;
    return this.props.children;
  }
}

export function Providers({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary>
      {children}
      <ToastRegion />
    </ErrorBoundary>
  );
}
