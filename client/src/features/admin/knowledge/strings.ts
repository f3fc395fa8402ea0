import { KNOWLEDGE_VERTICAL_IDS } from '@shared/catalog/verticals';
import { IMPORT_FORMATS_LABEL } from '@shared/contracts/knowledge-import';
import { verticalName } from '../../../lib/vertical-names';

/**
 * Texts of the Knowledge Base tab. Tests check them word for word.
 */
export const KNOWLEDGE = {
  listTitle: 'Knowledge Items',
  newItem: 'New knowledge item',
  searchPlaceholder: 'Search knowledge...',
  searchLabel: 'Search knowledge',
  filterLabel: 'Filter by vertical',
  allVerticals: 'All Verticals',
  loadingList: 'Loading knowledge items...',
  emptyList: 'No knowledge items found.',
  hasAttachments: 'Has supporting documents',
  placeholder: 'Select a knowledge item to edit or create a new one',

  editor: {
    newTitle: 'New Knowledge Item',
    editTitle: 'Edit Knowledge Item',
    viewTitle: 'Knowledge Item',
    save: 'Save',
    saving: 'Saving...',
    delete: 'Delete',
    deleting: 'Deleting...',
    close: 'Close editor',
    title: 'Title',
    content: 'Content',
    vertical: 'Vertical',
    category: 'Category',
    tags: 'Tags',
    tagsHint: 'Separate tags with commas',
    jurisdiction: 'Jurisdiction',
    jurisdictionHint: 'Legal questions use the items of the visitor’s jurisdiction and items without one, never another jurisdiction’s.',
    generalJurisdiction: 'None (general information)',
    subRegion: (label: string) => label,
    wholeJurisdiction: (name: string) => `All of ${name}`,
  },

  jurisdictionFilter: {
    label: 'Filter by jurisdiction',
    all: 'All jurisdictions',
    none: 'General (no jurisdiction)',
    subRegionLabel: 'Filter by sub-region',
    allSubRegions: (label: string) => `Any ${label.toLowerCase()}`,
  },

  attachments: {
    title: 'Supporting Documents',
    none: 'No supporting documents yet.',
    preview: (name: string) => `Preview ${name}`,
    remove: (name: string) => `Remove ${name}`,
    previewLoading: 'Loading preview...',
    previewFailed: 'The preview could not be loaded.',
    closePreview: 'Close preview',
    add: 'Add supporting documents',
    dropPrompt: 'Drag and drop files here, or click to choose',
    dropHint: 'TXT, JSON, Markdown, DOCX, XLSX, CSV, HTML, PDF, PNG, JPG or JPEG, up to 10MB each. Several files at once are fine.',
    notYetSupported: 'Legacy DOC and XLS attachments are not yet supported.',
    reading: (count: number) => (count === 1 ? 'Reading 1 file...' : `Reading ${count} files...`),
    tooLarge: (name: string) => `"${name}" is larger than 10MB, the limit for each file.`,
    unsupported: (name: string) => `"${name}" is not a supported type. Use .txt, .json, .md, .docx, .xlsx, .csv, .html, .pdf, .png, .jpg or .jpeg files.`,
    notYetSupportedFile: (name: string) => `"${name}": legacy DOC and XLS attachments are not yet supported. Save the file as .docx or .xlsx.`,
    converting: (name: string) => `Converting ${name}...`,
  },

  quickUpload: {
    title: 'Quick Upload Document',
    choose: 'Upload a TXT, JSON, PDF, DOCX, Markdown, HTML, CSV or XLSX document',
    prompt: 'Drop a file here or click to choose',
    formats: IMPORT_FORMATS_LABEL,
    converting: (name: string) => `Converting ${name}...`,
    busy: 'Uploading...',
    reading: (name: string) => `Reading ${name}...`,
    loadingParser: 'Loading the PDF reader...',
    parsing: (page: number, pages: number) => `Reading page ${page} of ${pages}...`,
    saving: (name: string) => `Saving ${name}...`,
    reviewTitle: (name: string) => `Review upload: ${name}`,
    reviewOne: 'Check the vertical, title and category before the item is created.',
    reviewMany: (count: number) => `The file holds ${count} items. Check them before they are created; the vertical and category below apply to items that do not set their own.`,
    itemsLabel: 'Items to create',
    contentPreview: 'Content preview',
    create: 'Create item',
    createMany: (count: number) => `Create ${count} items`,
    cancel: 'Cancel',
    createdMany: (count: number) => `${count} items created.`,
    createdSome: (created: number, total: number) => `${created} of ${total} items were created.`,
    columns: { title: 'Title', vertical: 'Vertical', category: 'Category', content: 'Content' },
    officeNotSupported: (kind: 'Excel' | 'Word') =>
      `Legacy ${kind} files (.${kind === 'Excel' ? 'xls' : 'doc'}) are not yet supported. Please:\n` +
      `1. Save the file as .${kind === 'Excel' ? 'xlsx' : 'docx'} and upload that, or\n` +
      '2. Copy and paste the content into a new knowledge item, or\n' +
      '3. Convert the file to plain text (.txt); for spreadsheets, save as CSV.\n\n' +
      `Supported formats: ${IMPORT_FORMATS_LABEL}`,
    unsupported: (name: string) => `"${name}" is not a supported file type.\n\nSupported formats: ${IMPORT_FORMATS_LABEL}`,
  },

  confirmDelete: {
    title: 'Delete knowledge item?',
    description: (title: string) => `"${title || 'Untitled'}" will be removed from the knowledge base. You can undo it for a few seconds.`,
    confirm: 'Delete',
    cancel: 'Cancel',
  },
  deleted: (title: string) => `Deleted "${title || 'Untitled'}".`,
  undo: 'Undo',
  restored: (title: string) => `Restored "${title || 'Untitled'}".`,
  notices: 'Notifications',
  dismiss: 'Dismiss',

  alerts: {
    saveFailed: 'Failed to save knowledge item. Please try again.',
    deleteFailed: 'Failed to delete knowledge item. Please try again.',
    uploadFailed: 'Failed to upload file. Please try again.',
    emptyFile: 'The file appears to be empty or could not be read.',
    emptyPdf: 'The PDF appears to be empty or contains no extractable text.',
    pdfParseFailed: 'Failed to parse PDF file. The file may be corrupted or contain only images.',
    pdfReadFailed: 'Failed to read PDF file.',
    uploaded: (name: string) => `Successfully uploaded: ${name}`,
    uploadedPdf: (name: string) => `Successfully uploaded and parsed PDF: ${name}`,
  },

  /** Labels of the verticals a knowledge item may belong to (every enabled vertical). */
  verticals: Object.fromEntries(KNOWLEDGE_VERTICAL_IDS.map((id) => [id, verticalName(id)])) as Record<string, string>,
};
