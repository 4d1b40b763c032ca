/** A step indicator: the steps in order, the current one marked for assistive technology. */
export function Stepper({ label, steps, current }: { label: string; steps: string[]; current: number }) {
  return (
    <ol className="stepper" aria-label={label}>
      {steps.map((step, index) => (
        <li
          key={step}
          className={index < current ? 'done' : index === current ? 'current' : undefined}
          aria-current={index === current ? 'step' : undefined}
        >
          {step}
        </li>
      ))}
    </ol>
  );
}
