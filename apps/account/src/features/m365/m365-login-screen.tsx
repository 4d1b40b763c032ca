import { copy } from '../../copy.ts';
import { Progress } from '../../shared/ui/progress.tsx';
import { M365_VIEWS, type M365LoginScreenProps } from './m365-views.tsx';

/** The m365 login screen: progress while loading, else the view of its mode (m365-views.tsx). */
export function M365LoginScreen(props: M365LoginScreenProps) {
  if (props.view === 'loading') return <Progress label={copy.m365.signingIn} />;
  const View = M365_VIEWS[props.view];
  return <View {...props} />;
}
