/** What other console tabs may show of the widgets tab: requests per widget (the analytics tab's overview). */
export { WidgetRequests } from './WidgetRequests';
