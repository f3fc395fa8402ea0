/** What other console tabs may show of the budgets tab: its budget lines (the analytics tab's overview). */
export { BudgetLines } from './BudgetLines';
