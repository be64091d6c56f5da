import { AnchorLink } from '~/components/ui/anchor-link';
import { countryName } from '~/models/crm/countries';
import { RecordList } from './record-list';

type CompanyRow = {
  id: number;
  name: string;
  domain: string | null;
  url: string | null;
  country: string | null;
  isFavourite: boolean;
  tags: { id: number; name: string; color: string }[];
};

/** All companies or one company segment: name, domain, url, country (section 3 "Company" row). */
export function CompanyTable(props: {
  action: string;
  postAction?: string;
  filters: { q: string; tag: number | null };
  tagOptions: { id: number; name: string }[];
  list: { rows: CompanyRow[]; total: number; page: number; pageSize: number };
  locked: boolean;
  formError?: string | null;
}) {
  return (
    <RecordList
      id="companies"
      plural="companies"
      {...props}
      columns={[
        { key: 'name', label: 'Name', sortable: true, cell: (r) => <AnchorLink to={`/customers/companies/${r.id}`}>{r.name}</AnchorLink> },
        { key: 'domain', label: 'Domain', sortable: true, cell: (r) => r.domain ?? '' },
        { key: 'url', label: 'Url', cell: (r) => r.url ?? '' },
        { key: 'country', label: 'Country', sortable: true, cell: (r) => countryName(r.country) },
      ]}
    />
  );
}
