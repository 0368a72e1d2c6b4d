//! Domain lexicons: the names and words a synthesized task is dressed in,
//! so that one DNA yields differently dressed tasks.

/// One domain's vocabulary.
#[derive(Debug, Clone, Copy)]
pub struct Domain {
    /// The domain's name.
    pub name: &'static str,
    /// What one row stands for.
    pub row_noun: &'static str,
    /// A sentence of context for the description.
    pub context: &'static str,
    /// Names for numeric features.
    pub numeric: &'static [&'static str],
    /// Names for categorical features, with level names.
    pub categorical: &'static [(&'static str, &'static [&'static str])],
    /// Names for text features.
    pub text: &'static [&'static str],
    /// Target names: binary, multi-class, value.
    pub targets: [&'static str; 3],
    /// Class names for multi-class targets.
    pub classes: &'static [&'static str],
}

/// Organisations a synthesized task's title names, by domain: real
/// competitions are one organisation's data (`Rossmann Store Sales`).
pub(crate) const ORGANISATIONS: &[(&str, [&str; 6])] = &[
    (
        "healthcare",
        [
            "Riverside Clinics",
            "Northgate Health",
            "St. Brigid's Hospital",
            "Lakeshore Care",
            "Valley Medical Group",
            "Harbour Health Trust",
        ],
    ),
    ("retail", ["Marlow & Finch", "Cornerbasket", "Urbanthread", "Pinegrove Market", "Bluecart", "Hollis Home Goods"]),
    (
        "manufacturing",
        [
            "Kestrel Plastics",
            "Ardent Steelworks",
            "Norrland Paper",
            "Vireo Components",
            "Castell Foundry",
            "Orbis Packaging",
        ],
    ),
    (
        "it_operations",
        [
            "Stratus Cloud",
            "Fennel Hosting",
            "Quayside Networks",
            "Lumen Datacenters",
            "Copperline SaaS",
            "Basalt Systems",
        ],
    ),
    (
        "transportation",
        [
            "Meridian Freight",
            "Coastline Couriers",
            "Alder Logistics",
            "Tern Haulage",
            "Granite Rail Cargo",
            "Swiftway Vans",
        ],
    ),
    (
        "finance",
        [
            "Halden Savings Bank",
            "Crestmoor Credit Union",
            "Ivy Lane Lending",
            "Northbridge Finance",
            "Saltmarsh Bank",
            "Oakridge Mutual",
        ],
    ),
    (
        "science",
        [
            "Linnaeus Institute",
            "Halvorsen Lab",
            "Quill Biochem",
            "Ashby Research Centre",
            "Teal Analytics Lab",
            "Corvid Assays",
        ],
    ),
    (
        "agriculture",
        [
            "Greenfurrow Trials",
            "Mesa Agronomy",
            "Oat Hill Cooperative",
            "Riverbend Farms",
            "Sunfield Research Station",
            "Tallgrass Growers",
        ],
    ),
    (
        "energy",
        [
            "Brightgrid Utilities",
            "Westmoor Power",
            "Helio Municipal",
            "Fjordline Energy",
            "Cinder Valley Electric",
            "Northwind Gas & Power",
        ],
    ),
    (
        "insurance",
        [
            "Keystone Mutual",
            "Larkspur Insurance",
            "Anchorpoint Assurance",
            "Redfern General",
            "Bellhaven Cover",
            "Quarry Lane Insurers",
        ],
    ),
];

/// One of `domain`'s organisations, drawn from the plan `seed`'s
/// `synth-title` stream (`None` for a domain without any): the name a
/// forecasting or sequence task's title opens with.
pub(crate) fn organisation(domain: &str, seed: u64) -> Option<&'static str> {
    use rand::RngExt;
    let (_, orgs) = ORGANISATIONS.iter().find(|(d, _)| *d == domain)?;
    Some(orgs[sandmle_core::rng_for(seed, "synth-title").random_range(0..orgs.len())])
}

/// Every domain, in a fixed order.
pub const DOMAINS: &[Domain] = &[
    Domain {
        name: "healthcare",
        row_noun: "patient visit",
        context: "A clinic network recorded measurements and intake notes for each visit.",
        numeric: &[
            "age",
            "bmi",
            "systolic_bp",
            "diastolic_bp",
            "heart_rate",
            "glucose",
            "cholesterol",
            "creatinine",
            "hemoglobin",
            "days_since_last_visit",
            "steps_per_day",
            "sleep_hours",
            "oxygen_saturation",
            "weight_kg",
            "height_cm",
        ],
        categorical: &[
            (
                "ward",
                &["cardiology", "oncology", "general", "pediatrics", "neurology", "orthopedics", "icu", "maternity"],
            ),
            ("insurance", &["public", "private", "none", "employer"]),
            ("smoker", &["never", "former", "current"]),
            ("referral", &["gp", "emergency", "self", "specialist"]),
        ],
        text: &["intake_note", "symptoms"],
        targets: ["readmitted", "triage_level", "length_of_stay"],
        classes: &["routine", "urgent", "critical", "observation", "discharge"],
    },
    Domain {
        name: "retail",
        row_noun: "customer order",
        context: "An online shop logged its orders together with basket and customer details.",
        numeric: &[
            "basket_value",
            "items",
            "discount_pct",
            "customer_age",
            "visits_last_month",
            "minutes_on_site",
            "days_since_signup",
            "returns_last_year",
            "shipping_cost",
            "avg_item_price",
            "loyalty_points",
            "pages_viewed",
        ],
        categorical: &[
            ("channel", &["web", "app", "store", "phone"]),
            ("region", &["north", "south", "east", "west", "central"]),
            ("payment", &["card", "wallet", "invoice", "cash"]),
            ("segment", &["new", "regular", "vip", "lapsed"]),
        ],
        text: &["review", "search_query"],
        targets: ["returned", "customer_tier", "next_month_spend"],
        classes: &["bronze", "silver", "gold", "platinum", "diamond"],
    },
    Domain {
        name: "manufacturing",
        row_noun: "production batch",
        context: "A plant logged sensor readings and settings for every production batch.",
        numeric: &[
            "temperature",
            "pressure",
            "vibration",
            "humidity",
            "line_speed",
            "torque",
            "power_kw",
            "cycle_time",
            "tool_wear",
            "coolant_flow",
            "ambient_temp",
            "shift_hours",
        ],
        categorical: &[
            ("line", &["l1", "l2", "l3", "l4", "l5", "l6"]),
            ("supplier", &["acme", "borg", "corex", "dyna"]),
            ("shift", &["morning", "evening", "night"]),
            ("material", &["steel", "alloy", "polymer", "composite"]),
        ],
        text: &["operator_log", "maintenance_note"],
        targets: ["defective", "quality_grade", "yield_pct"],
        classes: &["grade_a", "grade_b", "grade_c", "grade_d", "scrap"],
    },
    Domain {
        name: "it_operations",
        row_noun: "service incident",
        context: "An operations team exported metrics and ticket text for each incident.",
        numeric: &[
            "cpu_load",
            "memory_gb",
            "disk_io",
            "latency_ms",
            "error_rate",
            "requests_per_s",
            "open_connections",
            "uptime_days",
            "queue_depth",
            "retries",
            "packet_loss",
            "deploys_last_week",
        ],
        categorical: &[
            ("service", &["auth", "billing", "search", "storage", "gateway", "mailer"]),
            ("region", &["eu", "us", "apac", "latam"]),
            ("tier", &["free", "pro", "enterprise"]),
            ("os", &["linux", "windows", "bsd"]),
        ],
        text: &["ticket_text", "alert_message"],
        targets: ["escalated", "severity", "resolution_minutes"],
        classes: &["low", "medium", "high", "severe", "blocker"],
    },
    Domain {
        name: "transportation",
        row_noun: "trip",
        context: "A logistics company recorded route, vehicle and timing details for each trip.",
        numeric: &[
            "distance_km",
            "planned_minutes",
            "stops",
            "load_kg",
            "fuel_l",
            "driver_hours",
            "vehicle_age",
            "avg_speed",
            "traffic_index",
            "rain_mm",
            "departure_hour",
            "toll_cost",
        ],
        categorical: &[
            ("vehicle", &["van", "truck", "bike", "car", "trailer"]),
            ("origin", &["hub_a", "hub_b", "hub_c", "hub_d"]),
            ("weekday", &["mon", "tue", "wed", "thu", "fri", "sat", "sun"]),
            ("carrier", &["own", "partner", "contract"]),
        ],
        text: &["dispatch_note", "driver_report"],
        targets: ["late", "delay_class", "arrival_delay"],
        classes: &["on_time", "minor", "moderate", "major", "cancelled"],
    },
    Domain {
        name: "finance",
        row_noun: "loan application",
        context: "A lender kept the financial profile attached to each application.",
        numeric: &[
            "income",
            "loan_amount",
            "debt_ratio",
            "credit_lines",
            "utilisation",
            "months_employed",
            "applicant_age",
            "late_payments",
            "savings",
            "monthly_rent",
            "inquiries",
            "term_months",
        ],
        categorical: &[
            ("purpose", &["car", "home", "education", "business", "medical", "travel"]),
            ("housing", &["own", "rent", "mortgage", "family"]),
            ("employment", &["salaried", "self", "contract", "retired"]),
            ("branch", &["city", "suburb", "rural", "online"]),
        ],
        text: &["purpose_note", "officer_comment"],
        targets: ["defaulted", "risk_band", "approved_amount"],
        classes: &["band_1", "band_2", "band_3", "band_4", "band_5"],
    },
    Domain {
        name: "science",
        row_noun: "lab sample",
        context: "A laboratory measured each sample with several instruments.",
        numeric: &[
            "absorbance",
            "ph",
            "conductivity",
            "mass_mg",
            "volume_ml",
            "reaction_time",
            "wavelength_nm",
            "concentration",
            "viscosity",
            "density",
            "turbidity",
            "incubation_hours",
        ],
        categorical: &[
            ("instrument", &["spec_a", "spec_b", "hplc", "gc_ms"]),
            ("batch", &["b01", "b02", "b03", "b04", "b05"]),
            ("technician", &["t1", "t2", "t3"]),
            ("medium", &["agar", "broth", "buffer"]),
        ],
        text: &["lab_note", "observation"],
        targets: ["contaminated", "compound_class", "activity"],
        classes: &["alpha", "beta", "gamma", "delta", "epsilon"],
    },
    Domain {
        name: "agriculture",
        row_noun: "field plot",
        context: "An agronomy trial recorded soil, weather and treatment data for every plot.",
        numeric: &[
            "nitrogen",
            "phosphorus",
            "potassium",
            "soil_moisture",
            "rainfall_mm",
            "sun_hours",
            "plot_area",
            "seed_density",
            "soil_ph",
            "altitude_m",
            "irrigation_l",
            "days_to_harvest",
        ],
        categorical: &[
            ("crop", &["wheat", "maize", "barley", "soy", "rice"]),
            ("soil", &["clay", "loam", "sand", "silt"]),
            ("treatment", &["control", "organic", "chemical", "mixed"]),
            ("farm", &["north", "river", "hill", "valley"]),
        ],
        text: &["field_note", "inspection"],
        targets: ["blighted", "harvest_grade", "yield_t_ha"],
        classes: &["premium", "standard", "feed", "reject", "export"],
    },
    Domain {
        name: "energy",
        row_noun: "building meter reading",
        context: "A utility collected monthly meter readings, weather and building details for each site.",
        numeric: &[
            "floor_area_m2",
            "occupants",
            "heating_degree_days",
            "outdoor_temp",
            "building_age",
            "solar_kw",
            "max_demand_kw",
            "appliances",
            "window_share",
            "insulation_cm",
            "tariff_rate",
            "meter_faults",
        ],
        categorical: &[
            ("building_type", &["apartment", "office", "school", "warehouse", "retail", "house"]),
            ("heating", &["gas", "heat_pump", "electric", "district", "oil"]),
            ("climate_zone", &["coastal", "continental", "alpine", "mediterranean"]),
            ("meter", &["smart", "analog", "prepaid"]),
        ],
        text: &["site_note", "complaint"],
        targets: ["overconsumed", "efficiency_label", "monthly_kwh"],
        classes: &["a_rated", "b_rated", "c_rated", "d_rated", "e_rated"],
    },
    Domain {
        name: "insurance",
        row_noun: "insurance claim",
        context: "An insurer kept each claim with the policy, the insured party and the adjuster's notes.",
        numeric: &[
            "policy_age_months",
            "insured_age",
            "premium",
            "deductible",
            "claim_amount",
            "prior_claims",
            "days_to_report",
            "vehicle_value",
            "coverage_limit",
            "witnesses",
            "repair_estimate",
            "policy_holders",
        ],
        categorical: &[
            ("line_of_business", &["motor", "home", "travel", "health", "liability"]),
            ("channel", &["broker", "online", "agent", "bank"]),
            ("incident", &["collision", "theft", "water", "fire", "injury", "storm"]),
            ("region", &["north", "south", "east", "west", "capital"]),
        ],
        text: &["adjuster_note", "claim_description"],
        targets: ["fraudulent", "severity_class", "settled_amount"],
        classes: &["minor", "moderate", "major", "severe", "total_loss"],
    },
];

/// The domain at `index` (wrapping).
pub fn domain(index: usize) -> &'static Domain {
    &DOMAINS[index % DOMAINS.len()]
}

/// Qualifiers that make a second, third, ... column of the same base
/// name meaningful (`recent_glucose`), never numbered (`glucose_2`).
pub(crate) const QUALIFIERS: [&str; 8] =
    ["", "baseline_", "recent_", "peak_", "average_", "minimum_", "median_", "projected_"];

/// `count` names from `base`, distinct from each other and from `used`
/// (which they are added to): every base name plain first, then qualified
/// (`QUALIFIERS`), then, past every qualifier, with the round number
/// spelled out (`round_9_age`).
pub(crate) fn names(base: &[&str], count: usize, used: &mut std::collections::BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(count);
    if base.is_empty() {
        return out;
    }
    let mut round = 0usize;
    while out.len() < count {
        for b in base {
            if out.len() == count {
                break;
            }
            let name = match QUALIFIERS.get(round) {
                Some(q) => format!("{q}{b}"),
                None => format!("round_{round}_{b}"),
            };
            if used.insert(name.clone()) {
                out.push(name);
            }
        }
        round += 1;
    }
    out
}

/// A name without its qualifier (`recent_glucose` → `glucose`,
/// `round_9_age` → `age`).
pub(crate) fn base_name(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix("round_")
        && let Some((n, base)) = rest.split_once('_')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        return base;
    }
    QUALIFIERS.iter().filter(|q| !q.is_empty()).find_map(|q| name.strip_prefix(q)).unwrap_or(name)
}
