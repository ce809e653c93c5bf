"""How US clinics' forms in Spanish label the fields an intake asks for: data only, merged into
`concepts.CONCEPTS`. Written without accents: labels are matched on their words with accents
taken off ("Teléfono celular" is "telefono celular")."""

SPANISH_LABELS: dict[str, tuple[str, ...]] = {
    "first_name": ("nombre", "primer nombre", "nombre de pila"),
    "middle_name": ("segundo nombre", "inicial del segundo nombre"),
    "last_name": ("apellido", "apellidos", "primer apellido"),
    "full_name": ("nombre completo", "nombre del paciente", "nombre y apellido"),
    "date_of_birth": ("fecha de nacimiento", "fecha nac", "nacimiento"),
    "gender": ("sexo", "genero"),
    "mobile": ("telefono celular", "celular", "telefono movil", "movil"),
    "phone": ("telefono",),
    "home_phone": ("telefono de casa", "telefono del hogar", "casa"),
    "work_phone": ("telefono del trabajo", "trabajo"),
    "email": ("correo electronico", "correo"),
    "address": ("direccion", "domicilio", "direccion postal"),
    "city": ("ciudad",),
    "state": ("estado",),
    # "Estado civil" is the marital status, not the state: the longer phrase wins.
    "marital_status": ("marital status", "estado civil"),
    "zip": ("codigo postal", "zona postal"),
    "insurer": ("compania de seguro", "compania de seguros", "aseguradora", "seguro medico", "seguro"),
    "policy_id": (
        "numero de poliza",
        "poliza",
        "id de miembro",
        "numero de miembro",
        "numero de identificacion",
    ),
    "group_number": ("numero de grupo", "grupo"),
    "policy_holder": ("titular de la poliza", "titular", "asegurado"),
    "provider": ("medico", "medico de cabecera", "medico primario", "doctor de cabecera"),
    "emergency_contact": ("contacto de emergencia", "en caso de emergencia"),
    "relationship": ("parentesco", "relacion con el paciente"),
    "pharmacy": ("farmacia",),
    "employer": ("empleador",),
}
