import { CircleAlert, CircleCheck, TriangleAlert } from 'lucide-react';
import type { ValidationReport } from '../api/config-api';
import { CONFIG } from '../strings';

/** The result of 'Validate Config': the problems the server found, or that there are none. */
export function ValidationPanel({ report }: { report: ValidationReport }) {
  // Green only when nothing was found: warnings get an amber box, errors a red one.
  const tone = report.problems.some((p) => p.severity === 'error') || !report.valid ? 'is-invalid' : report.problems.length ? 'is-warning' : 'is-valid';
  return (
    <section className={`config-validation ${tone}`} aria-label={CONFIG.validation.title} role="status">
      {report.problems.length === 0 ? (
        <p className="config-validation-ok">
          <CircleCheck size={18} aria-hidden="true" />
          {CONFIG.validation.ok}
        </p>
      ) : (
        <ul>
          {report.problems.map((p, i) => (
            <li key={i} className={`config-problem is-${p.severity}`}>
              {p.severity === 'error' ? <CircleAlert size={16} aria-hidden="true" /> : <TriangleAlert size={16} aria-hidden="true" />}
              <span className="config-problem-kind">{p.severity === 'error' ? CONFIG.validation.error : CONFIG.validation.warning}</span>
              <span>{p.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
