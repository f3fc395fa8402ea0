/** The mail every admin gets when a budget reaches its soft threshold or its cap. */
import type { OutgoingMail } from '../mail/mail.types';
import type { Budget, BudgetAlert } from '../shared/contracts/limits';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

export function budgetAlertMail(admin: { email: string; name: string }, alert: BudgetAlert, budget: Budget): OutgoingMail {
  const what =
    alert.threshold === 'soft'
      ? `has used ${budget.softPercent}% of its monthly limit`
      : `has reached its monthly limit; chats it covers are now ${budget.onCap === 'offline' ? 'answered by the offline knowledge responder' : 'refused'} until the month ends`;
  const subject = alert.threshold === 'soft' ? `Budget "${alert.label}" at ${budget.softPercent}% for ${alert.month}` : `Budget "${alert.label}" reached its cap for ${alert.month}`;
  const lines = [
    admin.name ? `Hello ${admin.name},` : 'Hello,',
    '',
    `The budget "${alert.label}" (${alert.scope}) ${what}.`,
    '',
    `Spent in ${alert.month} (UTC): ${usd(alert.spentUsd)} of ${usd(alert.monthlyUsd)}.`,
    ...(alert.threshold === 'cap' && alert.spentUsd < alert.monthlyUsd ? [`The rest, ${usd(alert.monthlyUsd - alert.spentUsd)}, is less than one more reply may cost.`] : []),
    '',
    'Change the limit or the behaviour at the cap in the admin console, Budgets tab.',
    '',
  ];
  const html = `<!doctype html>
<html><body style="margin:0;padding:24px;background:#f1f5f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#0f172a">
<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:12px;padding:28px">
${lines
  .filter((l) => l !== '')
  .map((l) => `<p style="margin:0 0 12px">${escapeHtml(l)}</p>`)
  .join('\n')}
</div>
</body></html>
`;
  return { to: admin.email, subject, text: lines.join('\n'), html };
}
