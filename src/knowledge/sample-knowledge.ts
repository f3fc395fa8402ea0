/**
 * A small sample knowledge base for a made-up company, Acme, so a fresh install answers real
 * questions out of the box. Every item is labelled: category 'Sample' and first tag 'sample' (the
 * admin list shows the first two tags), so an administrator can find and delete them all.
 */
import type { KnowledgeItemInput } from '../shared/contracts/knowledge';

export const SAMPLE_CATEGORY = 'Sample';
export const SAMPLE_TAG = 'sample';

type SampleItem = KnowledgeItemInput & { vertical: 'customer-service' | 'hr' | 'legal' | 'sales'; content: string; category: string; tags: string[] };

function sample(vertical: KnowledgeItemInput['vertical'], title: string, tags: string[], content: string): SampleItem {
  return { vertical, title, category: SAMPLE_CATEGORY, tags: [SAMPLE_TAG, ...tags], content: content.trim() };
}

export const SAMPLE_KNOWLEDGE: readonly SampleItem[] = Object.freeze([
  // ---------------------------------------------------------------- customer service
  sample('customer-service', 'Returns and refunds', ['returns', 'refunds'], `
Our returns policy: you can return most items bought from Acme within 30 days of delivery for a full refund. Items must be unused, in their original packaging and with all accessories. Personalised products, gift cards and opened hygiene products (such as earbuds) cannot be returned unless they arrived faulty.

To start a return, sign in, open Orders, choose the order and select "Return an item". Print the prepaid label we email you and drop the parcel at any partner carrier location. Return shipping is free for faulty or wrong items; for other returns we deduct a flat $5.95 from the refund.

Refunds go back to the original payment method within 5 business days of the item reaching our warehouse. Your bank may take a further 3-5 days to show the money in your account. If you paid with a gift card, the amount is put back on a new gift card.
`),
  sample('customer-service', 'Shipping times and costs', ['shipping', 'delivery'], `
Standard shipping within the continental US takes 3-5 business days and is free on orders over $50; below that it costs $4.99. Express shipping takes 1-2 business days and costs $14.99. Orders placed before 2 pm Eastern on a business day leave our warehouse the same day.

We ship to Alaska, Hawaii and US territories in 5-9 business days, and to Canada and the UK in 7-12 business days. International orders may be charged import duties and taxes by the destination country; these are paid by the recipient on delivery.

Delivery dates shown at checkout are estimates. Carrier delays during holidays and severe weather are outside our control, but we will always help you chase a late parcel.
`),
  sample('customer-service', 'Tracking your order', ['orders', 'tracking'], `
As soon as your order ships we email you a confirmation with a tracking number and a link to the carrier's tracking page. You can also see the status of every order under Orders in your account: Processing, Shipped, Out for delivery or Delivered.

Tracking information can take up to 24 hours to appear after the shipping email. If your package has not arrived by the latest delivery date shown, contact us and we will trace it with the carrier. If your parcel shows as delivered but you cannot find it, check with neighbours and around your property, then contact us within 7 days and we will open a claim with the carrier.

Orders with several items may arrive in separate parcels, each with its own tracking number.
`),
  sample('customer-service', 'Resetting your password', ['account', 'password', 'login'], `
If you forgot your password or cannot sign in, select "Forgot password?" on the sign-in page and enter the email address on your account. We send a reset link that is valid for 60 minutes. Open it, choose a new password of at least 10 characters and sign in again.

No email? Check your spam folder and make sure you typed the address you registered with. For security, we do not say whether an address has an account. After five failed sign-in attempts your account is locked for 15 minutes.

If you no longer have access to that email address, contact support with your order number and we will verify your identity before updating your account.
`),
  sample('customer-service', 'Payment methods we accept', ['payment', 'billing'], `
Acme accepts Visa, Mastercard, American Express and Discover credit and debit cards, PayPal, Apple Pay, Google Pay and Acme gift cards. We do not accept cash on delivery, cheques or bank transfers for online orders.

Your card is authorised when you place the order and charged when the order ships. If an item is out of stock and removed from your order, the authorisation for that amount is released by your bank, usually within a few days.

You can pay for orders over $150 in four interest-free instalments with Acme Pay Later, subject to approval. All payments are processed over an encrypted connection and we never store your full card number.
`),
  sample('customer-service', 'Cancelling or changing an order', ['orders', 'cancellation'], `
You can cancel or change an order for up to 1 hour after placing it, as long as it has not started processing. Open Orders in your account, choose the order and select "Cancel order" or "Edit order" to change the address, size or quantity.

Once an order is being packed it can no longer be cancelled. You can refuse the delivery or return the items once they arrive, and we will refund you under our returns policy.

If you cancel, we release the payment authorisation immediately; depending on your bank it may take 3-5 business days to disappear from your statement.
`),
  sample('customer-service', 'Product warranty', ['warranty', 'repairs'], `
All Acme-branded products come with a 2-year limited warranty from the date of delivery that covers defects in materials and workmanship. The warranty does not cover normal wear and tear, accidental damage, water damage or repairs made by anyone other than Acme or an authorised service centre.

To make a warranty claim, contact support with your order number, a description of the fault and a photo or video if possible. If the fault is covered we will repair the product, replace it or, if neither is possible, refund the purchase price. We pay shipping both ways for approved claims.

Products from other brands sold on our site carry the manufacturer's own warranty; we are happy to help you contact them.
`),
  sample('customer-service', 'Contacting customer support', ['support', 'contact'], `
Our support team is available by live chat and phone (1-800-555-0142) Monday to Friday, 8 am to 8 pm Eastern, and Saturday, 9 am to 5 pm. Email support@acme.example at any time; we reply within one business day.

To help us solve your problem quickly, have your order number and the email address on your account ready. For damaged items, photos of the product and packaging speed things up.

If you are not happy with how your request was handled, ask the agent to escalate it to a team lead, who will reply within two business days.
`),

  // ---------------------------------------------------------------- hr
  sample('hr', 'Paid time off (PTO)', ['time-off', 'pto', 'vacation'], `
Full-time Acme employees earn 20 days of paid time off per calendar year, accrued monthly (1.67 days per month). Part-time employees accrue PTO in proportion to their scheduled hours. PTO covers vacation and personal days; sick leave and public holidays are separate.

Request PTO in the HR portal at least two weeks in advance for absences longer than three days. Your manager approves or declines within three business days. Requests over the winter holiday period are approved in the order they are received.

You can carry over up to 5 unused days into the next year; carried-over days expire on March 31. Unused accrued PTO is paid out when you leave the company.
`),
  sample('hr', 'Sick leave', ['time-off', 'sick-leave'], `
Employees receive 10 paid sick days per year, available from the first day of employment. Sick days can be used for your own illness, injury or medical appointments, or to care for a sick family member.

Tell your manager as early as possible, and no later than the start of your working day, that you will be off sick, and record the absence in the HR portal when you are back. For absences of more than 5 consecutive working days we ask for a doctor's note.

If an illness lasts longer than your sick leave allowance, talk to HR about short-term disability and other options. Unused sick days do not carry over and are not paid out.
`),
  sample('hr', 'Benefits enrolment', ['benefits', 'insurance'], `
New employees can enrol in Acme's benefits within 30 days of their start date. Coverage starts on the first day of the month after you enrol. Benefits include medical, dental and vision insurance, a 401(k) plan with a 4% company match, life insurance and an employee assistance programme.

Open enrolment runs every year from November 1 to November 15; choices made then apply from January 1. Outside open enrolment you can only change your benefits after a qualifying life event, such as marriage, the birth or adoption of a child, or a spouse losing coverage, and you must do so within 30 days of the event.

Enrol or make changes in the HR portal under Benefits. Plan summaries and costs for each coverage level are available there too.
`),
  sample('hr', 'Parental leave', ['time-off', 'parental-leave', 'family'], `
Acme offers 16 weeks of fully paid parental leave to all parents, including birth, adoptive and foster parents, once they have been employed for 6 months. Leave can be taken in one block or in up to three blocks within 12 months of the birth or placement.

Please let your manager and HR know at least 8 weeks before you plan to start your leave, or as soon as possible if the birth or placement is unexpected. During leave your benefits continue and your job is protected.

When you return you can ask for a phased return, working reduced hours on full pay for up to four weeks.
`),
  sample('hr', 'Remote and hybrid work', ['remote-work', 'hybrid'], `
Most roles at Acme are hybrid: employees work from the office at least two days a week, agreed with their team. Fully remote arrangements are possible for some roles with the approval of your manager and HR.

When working from home you must have a safe, quiet workspace and a reliable internet connection, and follow the information security policy, including using the company VPN. Acme provides a laptop and a one-off $500 allowance for home office equipment.

Working from another country, even for a short time, has tax and legal consequences and needs HR approval in advance.
`),
  sample('hr', 'Expenses and reimbursement', ['expenses', 'travel'], `
Acme reimburses reasonable business expenses that you pay for yourself, such as travel, accommodation, meals while travelling and client entertainment approved by your manager. Submit expenses in the expenses tool within 30 days, with an itemised receipt for every item over $25.

Approved expenses are paid with your next monthly salary. Book flights and hotels through the company travel portal where possible; economy class is standard for flights under 6 hours.

Personal expenses, fines, alcohol outside client entertainment and first-class upgrades are not reimbursed.
`),

  // ---------------------------------------------------------------- legal (general information)
  sample('legal', 'Small claims court basics', ['courts', 'disputes'], `
General information only, not legal advice. Small claims courts handle disputes over modest amounts of money without the need for a lawyer. The maximum you can claim depends on the jurisdiction; in many US states it is between $5,000 and $15,000, and in England and Wales it is £10,000.

To bring a claim you usually file a short form with the court, pay a filing fee and serve the claim on the other party. Hearings are informal: each side explains its case and shows evidence such as contracts, receipts, photos and messages.

Before going to court, it is usually expected that you try to settle the dispute, for example by sending a letter before action setting out what you want and a deadline. Consult a qualified lawyer in your jurisdiction about your specific situation.
`),
  sample('legal', 'Tenant rights when renting a home', ['housing', 'tenancy'], `
General information only, not legal advice. In most jurisdictions tenants have a right to a home that is safe and fit to live in, to privacy (the landlord must normally give notice before entering) and to have their deposit protected and returned, minus lawful deductions, at the end of the tenancy.

Landlords usually cannot evict a tenant without following a court process, and notice periods depend on the type of tenancy and the local law. Rent increases are often limited to once a year and may require written notice.

Keep a copy of your lease, records of rent payments and written communication with your landlord. Local tenant unions, legal aid services and a qualified lawyer can explain the rules that apply where you live.
`),
  sample('legal', 'Consumer rights for faulty goods', ['consumer', 'purchases'], `
General information only, not legal advice. Consumer protection laws generally require that goods are of satisfactory quality, fit for purpose and as described. If something you bought is faulty, you may be entitled to a repair, a replacement or a refund, depending on how soon you report the fault.

In the EU and UK, for example, you have a right to reject faulty goods for a full refund within a short period after purchase (30 days in the UK), and sellers are responsible for defects that appear within two years. In the US, implied warranties under state law and the federal Magnuson-Moss Warranty Act play a similar role.

Keep your receipt and report the fault to the seller in writing. If the seller will not help, consumer protection agencies, alternative dispute resolution schemes or small claims courts may help. A lawyer can advise on your particular case.
`),

  // ---------------------------------------------------------------- sales
  sample('sales', 'Handling price objections', ['objections', 'pricing'], `
When a prospect says "it's too expensive", treat it as a request for more information, not a rejection. Ask what they are comparing the price with: a competitor, a budget figure or doing nothing. The answer tells you whether you need to show differentiation, rework the scope or build the cost-of-inaction case.

Anchor the conversation on value: quantify the problem in the customer's own numbers (hours saved, revenue protected, risk reduced) and compare that with the price. Avoid discounting straight away; if you do concede on price, ask for something in return, such as a longer term, a case study or a faster signature.

Useful wording: "Setting the price aside for a moment, is this the solution you would choose?" If the answer is yes, you are negotiating terms; if no, price is not the real objection.
`),
  sample('sales', 'Qualifying leads with BANT', ['qualification', 'leads'], `
BANT is a simple way to decide whether a lead is worth pursuing: Budget (can they pay for it?), Authority (is this person the decision-maker, or who is?), Need (is there a real problem our product solves?) and Timeline (when do they need it solved?).

Ask open questions early in discovery, such as "How are you handling this today?", "Who else will be involved in the decision?" and "What happens if nothing changes this quarter?". Record the answers in the CRM so the whole team can see where each deal stands.

A lead missing one element is not necessarily lost; a strong need with no budget yet can become a good opportunity next quarter. Leads missing most elements should go back to marketing nurture rather than taking up sales time.
`),
  sample('sales', 'Closing techniques that respect the buyer', ['closing', 'negotiation'], `
Good closing starts early: confirm the buyer's success criteria, decision process and timeline during discovery, so the close is the natural next step rather than pressure at the end.

A trial close checks readiness without forcing a decision: "Based on what you've seen, does this solve the reporting problem you described?" A summary close restates the agreed value and next steps; an assumptive close moves to logistics ("Shall we plan onboarding for the first week of next month?") once the buyer has clearly agreed.

Always agree a mutual action plan with dates for legal review, security questionnaires and signature. If a deal stalls, ask directly what has changed rather than offering discounts.
`),
]);
